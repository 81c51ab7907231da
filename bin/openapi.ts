import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../openapi/document.ts';
import { renderApiReference } from '../openapi/reference.ts';
import { SDK_TYPES_FILE, sdkTypes } from '../openapi/sdk-types.ts';

/**
 * `npm run openapi`: writes docs/openapi.json and docs/api.md from the zod schemas, and the merchant SDK's types
 * from the document (tests check all three).
 */
const docs = join(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
writeFileSync(join(docs, 'api.md'), renderApiReference());
writeFileSync(SDK_TYPES_FILE, await sdkTypes());
console.log('wrote docs/openapi.json, docs/api.md and lib/merchant-sdk/api-types.ts');
