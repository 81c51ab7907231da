import { apiHandler, json } from '../http/api-handler.ts';
import { openApiDocument } from '../http/openapi.ts';

const document = openApiDocument();

/** GET /v1/openapi.json: public, the one route without an API key (PRODUCT.md section 6). */
export const handler = apiHandler({ auth: false, body: 'none' }, async () =>
  json(200, document, { 'Cache-Control': 'public, max-age=300' }),
);
