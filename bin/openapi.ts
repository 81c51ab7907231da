import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../lib/openapi/document.ts';
import { renderApiReference } from '../lib/openapi/reference.ts';
import { SDK_TYPES_FILE, sdkTypes } from '../lib/openapi/sdk-types.ts';
import { SERVED_DOCUMENT_FILE, servedDocumentModule } from '../lib/openapi/served-document.ts';

/**
 * `npm run openapi`: writes docs/openapi.json and docs/api.md from the zod schemas, the module get-openapi serves
 * the document from, and the merchant SDK's types from the document (tests check all four).
 */
const docs = join(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
writeFileSync(join(docs, 'api.md'), renderApiReference());
writeFileSync(SERVED_DOCUMENT_FILE, servedDocumentModule());
writeFileSync(SDK_TYPES_FILE, await sdkTypes());
console.log(
  'wrote docs/openapi.json, docs/api.md, functions/http/api/openapi-document.ts and lib/merchant-sdk/api-types.ts',
);
