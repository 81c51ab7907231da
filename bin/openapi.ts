import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../openapi/document.ts';
import { renderApiReference } from '../openapi/reference.ts';

/** `npm run openapi`: writes docs/openapi.json and docs/api.md from the zod schemas (a test checks both). */
const docs = join(import.meta.dirname, '..', 'docs');
writeFileSync(join(docs, 'openapi.json'), `${JSON.stringify(openApiDocument(), null, 2)}\n`);
writeFileSync(join(docs, 'api.md'), renderApiReference());
console.log('wrote docs/openapi.json and docs/api.md');
