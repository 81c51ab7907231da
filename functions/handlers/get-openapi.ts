import { jsonText, publicApiHandler } from '../http/api/api-handler.ts';
import { OPENAPI_DOCUMENT_JSON } from '../http/api/openapi-document.ts';

/**
 * GET /v1/openapi.json: public, the one /v1 route without an API key (docs/api.md#this-openapi-document). It serves the document
 * `npm run openapi` generates from the zod schemas (a test keeps it current), so the function does not carry
 * the JSON Schema generator; as the JSON text itself, which costs a cold start least and is sent as it is.
 */
export const handler = publicApiHandler({ body: 'none' }, async () =>
  jsonText(200, OPENAPI_DOCUMENT_JSON, { 'Cache-Control': 'public, max-age=300' }),
);
