import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCapabilityTable } from '../lib/docs/psp-capabilities.ts';
import { openApiDocument } from '../lib/openapi/document.ts';
import { renderApiReference } from '../lib/openapi/reference.ts';
import { SDK_TYPES_FILE, sdkTypes } from '../lib/openapi/sdk-types.ts';
import { SERVED_DOCUMENT_FILE, servedDocumentModule } from '../lib/openapi/served-document.ts';

/**
 * `npm run openapi`: writes docs/openapi.json and docs/api.md from the zod schemas, the module get-openapi serves
 * the document from, the merchant SDK's types from the document, and the table of the PSPs' capabilities in
 * docs/orchestration.md from their descriptors (tests check all five).
 */
const docs = join(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
writeFileSync(join(docs, 'api.md'), renderApiReference());
writeFileSync(SERVED_DOCUMENT_FILE, servedDocumentModule());
writeFileSync(SDK_TYPES_FILE, await sdkTypes());
const orchestration = join(docs, 'orchestration.md');
writeFileSync(orchestration, withCapabilityTable(readFileSync(orchestration, 'utf8')));
console.log(
  'wrote docs/openapi.json, docs/api.md, functions/http/api/openapi-document.ts, lib/merchant-sdk/api-types.ts and the capability table of docs/orchestration.md',
);
