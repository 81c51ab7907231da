import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The import rules are Biome's (biome.json, biome/*.grit; docs/architecture.md#import-rules): `npm run lint` holds
 * the project to them. This test plants violations in a small tree that has the project's own configuration and
 * expects Biome to name each of them, and nothing else: a finding in the tree's legal imports would be a false one.
 */

const root = join(import.meta.dirname, '..', '..');
const biome = join(root, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');
const run = promisify(execFile);

const LAYER = 'lint/style/noRestrictedImports';
const CIRCLE = 'lint/suspicious/noImportCycles';
const PLUGIN = 'plugin';
const IMPORT_RULES = [LAYER, CIRCLE, PLUGIN];

/** Each room importing what lies below it, in the forms an import takes. */
const LEGAL: Record<string, string> = {
  'functions/domain/money.ts': "import { createHash } from 'node:crypto';\nexport const money = createHash;",
  'functions/domain/link.ts': "import { money } from './money.ts';\nexport type Link = typeof money;",
  // A room of the domain in a folder of its own, as the checkout's is.
  'functions/domain/checkout/plan.ts':
    "import type { Link } from '../link.ts';\nimport { money } from '../money.ts';\nexport const plan = money as unknown as Link;",
  'functions/once.ts': 'export const once = 1;',
  'functions/source-mapped-stack.ts':
    "import { readFileSync } from 'node:fs';\nexport const stack = readFileSync;",
  'functions/logger.ts': "import { stack } from './source-mapped-stack.ts';\nexport const logger = stack;",
  'functions/metrics.ts':
    "import { logger } from './logger.ts';\nimport { once } from './once.ts';\nexport const metrics = [logger, once];",
  'functions/clients/dynamodb.ts': "import { once } from '../once.ts';\nexport const client = once;",
  'functions/ports/store.ts': "import type { Link } from '../domain/link.ts';\nexport type Store = Link;",
  'functions/adapters/http/sender.ts': 'export const sender = 1;',
  'functions/adapters/dynamodb/store.ts': [
    "import type { Link } from '../../domain/link.ts';",
    "import { logger } from '../../logger.ts';",
    "import type { Store } from '../../ports/store.ts';",
    "import { sender } from '../http/sender.ts';",
    'export const store = [logger, sender] as unknown as Store & Link;',
  ].join('\n'),
  'functions/use-cases/checkout.ts': [
    "import type { Link } from '../domain/link.ts';",
    "import { metrics } from '../metrics.ts';",
    "import type { Store } from '../ports/store.ts';",
    'export const checkout = metrics as unknown as Store & Link;',
  ].join('\n'),
  'functions/config.ts':
    "import { store } from './adapters/dynamodb/store.ts';\nexport const config = store;",
  'functions/dependencies.ts': [
    "import { store } from './adapters/dynamodb/store.ts';",
    "import { client } from './clients/dynamodb.ts';",
    "import { config } from './config.ts';",
    "import { checkout } from './use-cases/checkout.ts';",
    'export const dependencies = [store, client, config, checkout];',
  ].join('\n'),
  'functions/http/response-schemas.ts': 'export const LinkSchema = 1;',
  // The schema files build on one another: only they take the schemas as values.
  'functions/http/endpoint-response-schemas.ts': "export { LinkSchema } from './response-schemas.ts';",
  'functions/http/messages/texts.ts': 'export interface Messages {\n  title: string;\n}',
  'functions/http/messages/en.ts':
    "import type { Messages } from './texts.ts';\nexport const en: Messages = { title: '' };",
  'functions/http/messages.ts': "import { en } from './messages/en.ts';\nexport const messages = { en };",
  // A surface's own texts, a floor deeper (functions/http/console/messages/).
  'functions/http/console/messages/en.ts':
    "import type { Link } from '../../../domain/link.ts';\nimport type { Messages } from '../../messages/texts.ts';\nexport type En = Link & Messages;",
  'functions/http/api.ts': [
    "import { dependencies } from '../dependencies.ts';",
    "import { checkout } from '../use-cases/checkout.ts';",
    "import { messages } from './messages.ts';",
    "import type { LinkSchema } from './response-schemas.ts';",
    "export type { LinkSchema as Link } from './response-schemas.ts';",
    'export const api = [dependencies, checkout, messages] as unknown as typeof LinkSchema;',
  ].join('\n'),
  'functions/handlers/checkout.ts': [
    "import { dependencies } from '../dependencies.ts';",
    "import { api } from '../http/api.ts';",
    'export const handler = [dependencies, api];',
  ].join('\n'),
  'lib/routes.ts':
    "import { handler } from '../functions/handlers/checkout.ts';\nexport const routes = [handler];",
  'lib/local/stack.ts': [
    "import { api } from '../../functions/http/api.ts';",
    "import { routes } from '../routes.ts';",
    "export const stack = async () => [api, routes, await import('../openapi/document.ts')];",
  ].join('\n'),
  'lib/openapi/document.ts': 'export const document = 1;',
  'bin/local.ts':
    "import { stack } from '../lib/local/stack.ts';\nimport { once } from '../functions/once.ts';\nexport const local = [stack, once];",
  'test/support/eventually.ts':
    "import { api } from '../../functions/http/api.ts';\nexport const eventually = api;",
  // A PSP is a folder: it imports the kit and the floors below the adapters; its test code, test/support too.
  'functions/adapters/psp/kit/calls.ts':
    "import { logger } from '../../../logger.ts';\nexport const calls = logger;",
  'functions/adapters/psp/acme/descriptor.ts':
    "import type { Link } from '../../../domain/link.ts';\nexport type Acme = Link;\nexport const acme = {};",
  'functions/adapters/psp/acme/adapter.ts': [
    "import type { Store } from '../../../ports/store.ts';",
    "import { calls } from '../kit/calls.ts';",
    "import type { Acme } from './descriptor.ts';",
    'export const adapter = calls as unknown as Store & Acme;',
  ].join('\n'),
  // The registry and the factories take a PSP's descriptor as a value, and hand it to its adapter.
  'functions/adapters/psp/registry.ts': [
    "import { type Acme, acme } from './acme/descriptor.ts';",
    "export const load = (): Promise<Acme> => import('./acme/adapter.ts');",
    'export const descriptors = [acme];',
  ].join('\n'),
  'functions/adapters/psp/acme/test/fake.ts': [
    "import { eventually } from '../../../../../test/support/eventually.ts';",
    "import { adapter } from '../adapter.ts';",
    "import { acme } from '../descriptor.ts';",
    'export const fake = [eventually, adapter, acme];',
  ].join('\n'),
};

/** Files of one line each: an import the rules refuse, and the rule that refuses it. */
const PLANTED: [file: string, line: string, rule: string][] = [
  // The domain imports nothing of ours but the domain, in any form an import takes, and does no I/O.
  ['functions/domain/up.ts', "import { store } from '../adapters/dynamodb/store.ts';", LAYER],
  ['functions/domain/port.ts', "import type { Store } from '../ports/store.ts';", LAYER],
  ['functions/domain/logger.ts', "export { logger } from '../logger.ts';", LAYER],
  ['functions/domain/lazy.ts', "export const later = () => import('../use-cases/checkout.ts');", LAYER],
  ['functions/domain/checkout/port.ts', "import type { Store } from '../../ports/store.ts';", LAYER],
  ['functions/domain/checkout/io.ts', "import { readFileSync } from 'node:fs';", LAYER],
  ['functions/domain/io.ts', "import { readFileSync } from 'node:fs';", LAYER],
  ['functions/domain/aws.ts', "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';", LAYER],
  // A type taken with import() would pass the other rules unseen.
  ['functions/domain/query.ts', "export type Query = typeof import('./link.ts');", PLUGIN],
  // No room imports one on its own floor or above.
  ['functions/zod.ts', "import type { Link } from './domain/link.ts';", LAYER],
  ['functions/ports/config.ts', "import type { config } from '../config.ts';", LAYER],
  ['functions/clients/up.ts', "import { metrics } from '../metrics.ts';", LAYER],
  ['functions/use-cases/adapter.ts', "import { store } from '../adapters/dynamodb/store.ts';", LAYER],
  ['functions/adapters/dynamodb/up.ts', "import { checkout } from '../../use-cases/checkout.ts';", LAYER],
  ['functions/http/up.ts', "export { handler } from '../handlers/checkout.ts';", LAYER],
  [
    'functions/http/console/messages/up.ts',
    "export { handler } from '../../../handlers/checkout.ts';",
    LAYER,
  ],
  // The functions never import lib/, bin/ or test/; lib/ never bin/ or test/; bin/ never test/.
  ['functions/handlers/lib.ts', "import { routes } from '../../lib/routes.ts';", LAYER],
  [
    'functions/http/messages/test.ts',
    "import { eventually } from '../../../test/support/eventually.ts';",
    LAYER,
  ],
  ['lib/local/bin.ts', "import { local } from '../../bin/local.ts';", LAYER],
  ['bin/test.ts', "import { eventually } from '../test/support/eventually.ts';", LAYER],
  // A PSP's folder imports no other PSP's, nor the registry; what a function runs never imports test code.
  ['functions/adapters/psp/other/adapter.ts', "import { adapter } from '../acme/adapter.ts';", LAYER],
  ['functions/adapters/psp/other/registry.ts', "import { load } from '../registry.ts';", LAYER],
  ['functions/adapters/psp/acme/fake.ts', "import { fake } from './test/fake.ts';", LAYER],
  // A PSP's runtime files take its descriptor as a type only: its adapter is handed the value.
  ['functions/adapters/psp/acme/wire.ts', "import { acme } from './descriptor.ts';", PLUGIN],
  ['functions/adapters/psp/acme/statuses.ts', "export { acme } from './descriptor.ts';", PLUGIN],
  ['functions/adapters/psp/acme/inline.ts', "import { type Acme } from './descriptor.ts';", PLUGIN],
  [
    'functions/adapters/psp/kit/support.ts',
    "import { eventually } from '../../../../test/support/eventually.ts';",
    LAYER,
  ],
  // A file at a depth no rule names, whose relative imports the rules could not read.
  ['functions/domain/deeper/deepest/rule.ts', "import { money } from '../../money.ts';", LAYER],
  // Outside the schema files, the response schemas (classic zod) come as types only.
  ['functions/handlers/schema.ts', "import { LinkSchema } from '../http/response-schemas.ts';", PLUGIN],
  // Two files that import each other's types.
  ['functions/http/circle-a.ts', "import type { B } from './circle-b.ts';", CIRCLE],
  ['functions/http/circle-b.ts', "import type { A } from './circle-a.ts';", CIRCLE],
];

/** A folder with the project's Biome configuration and these files. */
function treeOf(files: Record<string, string>): string {
  const tree = mkdtempSync(join(tmpdir(), 'import-rules-'));
  for (const config of ['biome.json', 'biome', '.gitignore']) {
    cpSync(join(root, config), join(tree, config), { recursive: true });
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    writeFileSync(join(tree, file), `${text}\n`);
  }
  return tree;
}

/** What the import rules find in a folder, as `file:line rule`. */
async function findings(dir: string): Promise<string[]> {
  const args = [biome, 'lint', '--reporter=github', '--max-diagnostics=none', '.'];
  const output = await run(process.execPath, args, { cwd: dir, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout }) => stdout,
    // Biome exits with 1 when it finds errors, which it reports on stdout; with none reported, it did not lint.
    (error: { stdout?: string }) => {
      if (!error.stdout?.includes('::error')) throw error;
      return error.stdout;
    },
  );
  return [...output.matchAll(/^::error title=([^,]+),file=([^,]+),line=(\d+)/gm)]
    .filter(([, rule]) => IMPORT_RULES.includes(rule as string))
    .map(([, rule, file, line]) => `${relative(dir, file as string)}:${line} ${rule}`)
    .sort();
}

describe('the import rules', () => {
  it('refuse every planted import up a layer, out of its room, or round a circle, and nothing legal', async () => {
    const tree = treeOf({ ...LEGAL, ...Object.fromEntries(PLANTED.map(([file, line]) => [file, line])) });
    try {
      const expected = PLANTED.map(([file, , rule]) => `${file}:1 ${rule}`).sort();
      expect(await findings(tree)).toEqual(expected);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
