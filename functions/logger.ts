import { Logger } from '@aws-lambda-powertools/logger';
import { mapErrorStack } from './source-mapped-stack.ts';

/**
 * One structured JSON logger for every function. Request bodies, API keys and secrets are never passed to it:
 * handlers log the route, status and ids only (see `functions/http/api-handler.ts`).
 *
 * Logged errors carry stacks that name our TypeScript files and lines: the replacer maps them through the
 * bundle's source map, read only when an error is logged (functions/source-mapped-stack.ts).
 */
export const logger = new Logger({
  serviceName: 'payment-links',
  jsonReplacerFn: (_key, value) => (value instanceof Error ? mapErrorStack(value) : value),
});
