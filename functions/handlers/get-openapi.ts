import document from '../../docs/openapi.json' with { type: 'json' };
import { json, publicApiHandler } from '../http/api-handler.ts';

/**
 * GET /v1/openapi.json: public, the one /v1 route without an API key (docs/api.md#this-openapi-document). It serves the document
 * `npm run openapi` generates from the zod schemas (a test keeps it current), so the function does not carry
 * the JSON Schema generator.
 */
export const handler = publicApiHandler({ body: 'none' }, async () =>
  json(200, document, { 'Cache-Control': 'public, max-age=300' }),
);
