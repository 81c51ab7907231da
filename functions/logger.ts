import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger for every function. Request bodies, API keys and secrets are never passed to it:
 * handlers log the route, status and ids only (see `functions/http/api-handler.ts`).
 */
export const logger = new Logger({ serviceName: 'payment-links' });
