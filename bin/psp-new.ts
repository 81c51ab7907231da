import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { PSP_DESCRIPTORS } from '../functions/adapters/psp/registry.ts';

/**
 * `npm run psp:new -- <id> [--name "Display Name"]` (docs/orchestration.md#adding-a-psp): writes a PSP's folder,
 * functions/adapters/psp/<id with _ as ->/, from lib/psp-template/ (its descriptor with TODOs, an adapter and a
 * fake that answer TODO, its conformance fixture, its contract's place), adds it to the registry, and regenerates
 * what the registry generates (`npm run openapi`). The folder compiles; the conformance suite fails for it until
 * its TODOs are done or its descriptor declares less.
 */

const root = join(import.meta.dirname, '..');
const TEMPLATE = join(root, 'lib', 'psp-template');
const REGISTRY = join(root, 'functions', 'adapters', 'psp', 'registry.ts');
const FACTORIES = join(root, 'functions', 'adapters', 'psp', 'factories.ts');

/** The spellings of a PSP's id the template's placeholders take. */
export interface PspNames {
  /** `acme_pay`: its connections' `provider`. */
  id: string;
  /** `acme-pay`: its folder and its flags' prefix. */
  folder: string;
  /** `acmePay`: its descriptor's name. */
  camel: string;
  /** `AcmePay`: its adapter's class. */
  pascal: string;
  /** `ACME_PAY`: its `<ID>_API_URL` and fake's name. */
  env: string;
  /** `Acme Pay`, as merchants know it. */
  name: string;
}

/** Why `id` cannot be a new PSP's id, or undefined. */
export function idProblem(id: string, taken: readonly string[]): string | undefined {
  if (!/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(id))
    return `${id}: an id is lower case, [a-z][a-z0-9_]*, as acme_pay.`;
  if (taken.includes(id)) return `${id}: a registered PSP has this id (or had it: an alias).`;
  return undefined;
}

export function namesOf(id: string, name?: string): PspNames {
  const words = id.split('_');
  const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
  return {
    id,
    folder: words.join('-'),
    camel: words[0] + words.slice(1).map(capital).join(''),
    pascal: words.map(capital).join(''),
    env: id.toUpperCase(),
    name: name ?? words.map(capital).join(' '),
  };
}

/** The template's text with its placeholders filled in. */
const filled = (text: string, names: PspNames) =>
  text
    .replaceAll('__ID__', names.id)
    .replaceAll('__FOLDER__', names.folder)
    .replaceAll('__CAMEL__', names.camel)
    .replaceAll('__PASCAL__', names.pascal)
    .replaceAll('__ENV__', names.env)
    .replaceAll('__NAME__', names.name);

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? templateFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** Writes the folder from the template; returns the files written, relative to the repository. */
function writeFolder(names: PspNames): string[] {
  const folder = join(root, 'functions', 'adapters', 'psp', names.folder);
  return templateFiles(TEMPLATE).map((file) => {
    const target = relative(TEMPLATE, file)
      .replace(/\.template$/, '')
      .replace(/trim\.json$/, `${names.id}.trim.json`);
    const path = join(folder, target);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, filled(readFileSync(file, 'utf8'), names));
    return relative(root, path);
  });
}

/** A list's items (on one line, or one per line with a trailing comma, as Biome writes it) with `item` last. */
const appended = (list: string, item: string) => `${list.trim().replace(/,$/, '')}, ${item}`;

/** A module's text with `line` after its last import (its imports sorted by Biome after). */
function withImport(source: string, line: string): string {
  const lastImport = source.lastIndexOf('\nimport ');
  const importsEnd = source.indexOf('\n', source.indexOf(' from ', lastImport)) + 1;
  return `${source.slice(0, importsEnd)}${line}\n${source.slice(importsEnd)}`;
}

/** The registry with the PSP's descriptor and identity added. */
export function registeredIn(registry: string, names: PspNames): string {
  const withImports = withImport(
    registry,
    `import { ${names.camel}, identity as ${names.camel}Identity } from './${names.folder}/descriptor.ts';`,
  );
  const descriptors = /(export const PSP_DESCRIPTORS = \[)([^\]]*)(\] as const;)/;
  const identities = /(export const PSP_IDENTITIES = \[)([^\]]*)(\] as const;)/;
  if (![descriptors, identities].every((list) => list.test(withImports))) throw unreadable('registry.ts');
  return withImports
    .replace(descriptors, (_, start, list, end) => `${start}${appended(list, names.camel)}${end}`)
    .replace(
      identities,
      (_, start, list, end) => `${start}${appended(list, `${names.camel}Identity`)}${end}`,
    );
}

/** The factories with the PSP's, its adapter module loaded when first used and handed its descriptor. */
export function factoryAddedTo(factories: string, names: PspNames): string {
  const list = /(export const PSP_FACTORIES: Record<PspId, CreatePspFactory> = \{\n)([\s\S]*?)(\n\};)/;
  if (!list.test(factories)) throw unreadable('factories.ts');
  const line = `  ${names.id}: loadedWhenUsed(${names.camel}, () => import('./${names.folder}/adapter.ts')),`;
  return withImport(factories, `import { ${names.camel} } from './${names.folder}/descriptor.ts';`).replace(
    list,
    (_, start, lines, end) => `${start}${lines}\n${line}${end}`,
  );
}

const unreadable = (file: string) =>
  new Error(
    `functions/adapters/psp/${file} no longer reads as psp:new expects: add the PSP by hand (docs/orchestration.md).`,
  );

const tool = (name: string) => join(root, 'node_modules', '.bin', name);

if (import.meta.main) {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' } },
  });
  const [id = ''] = positionals;
  const taken = PSP_DESCRIPTORS.flatMap((descriptor) => [descriptor.id, ...(descriptor.aliases ?? [])]);
  const problem = idProblem(id, taken);
  const names = namesOf(id, values.name);
  if (problem || existsSync(join(root, 'functions', 'adapters', 'psp', names.folder))) {
    console.error(problem ?? `functions/adapters/psp/${names.folder}/ exists already.`);
    console.error('usage: npm run psp:new -- <id> [--name "Display Name"]');
    process.exit(2);
  }
  const written = writeFolder(names);
  writeFileSync(REGISTRY, registeredIn(readFileSync(REGISTRY, 'utf8'), names));
  writeFileSync(FACTORIES, factoryAddedTo(readFileSync(FACTORIES, 'utf8'), names));
  execFileSync(
    tool('biome'),
    ['check', '--write', REGISTRY, FACTORIES, ...written.filter((file) => file.endsWith('.ts'))],
    {
      cwd: root,
      stdio: 'ignore',
    },
  );
  execFileSync(process.execPath, [join(root, 'bin', 'openapi.ts')], { cwd: root, stdio: 'inherit' });
  console.log(
    `wrote ${written.join(', ')}; registered ${id} in functions/adapters/psp/registry.ts and factories.ts.`,
  );
  console.log(
    `next: its TODOs, until the conformance suite passes for it: npx vitest run test/integration/psp-conformance -t '^${id}'`,
  );
}
