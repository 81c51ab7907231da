/**
 * Trims a PSP's official OpenAPI document to the operations our adapters call, so the contract checks
 * (test/support/psp-contract.ts) validate against the PSP's own text without storing megabytes of it:
 *
 *   node test/contracts/trim.ts <its trim.json> <path of the full official document or folder> [source note]
 *
 * A PSP's folder holds its contract (functions/adapters/psp/<folder>/test/contract/) and names the operations its
 * adapter calls in a `<name>.trim.json` there (`TrimSpec`: `{"operations": {...}, "requestsOnly"?: true,
 * "keep"?: [...], "undefinedSchemas"?: [...]}`, paths as the document spells them); the trimmed document is
 * written beside it as `<name>.trimmed.json`.
 *
 * A document published split into one YAML file per path and per component (as checkout/checkout-api-reference's
 * `abc_spec/`): give that folder instead of a file, and it is assembled as that repository's own generator
 * (src/OpenApiGenerator) does: a path from its file name (`@` for `/`), a component from its file name, whatever
 * subfolder holds it.
 *
 * The trim only removes: operations not listed (and
 * their other methods), components no kept operation reaches through `$ref`, annotations that validate
 * nothing (`description`, `summary`, `example(s)`, `x-*` vendor extensions), and for a `requestsOnly` PSP
 * the operations' `responses`. Every kept schema is otherwise the document's own, byte for byte in meaning;
 * nothing is added but `x-trimmed-from`, which says where it came from, and an empty schema for each of the
 * `undefinedSchemas` a PSP's trim names (a `$ref` its document leaves dangling). How to refresh:
 * docs/testing.md#psp-contract-tests.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `requestsOnly`: the document is kept for requests only: the trim removes each operation's `responses` (never
 * rewrites them), so the fake's answers are not judged (a PSP's `trim.json` says why,
 * docs/testing.md#psp-contract-tests).
 */
interface TrimSpec {
  operations: Record<string, string[]>;
  requestsOnly?: boolean;
  /**
   * Component schemas kept by name though no kept operation reaches them (with what they reach): the bodies of
   * the PSP's notifications, which its document describes as components only (a `PaymentUpdatedEvent`).
   */
  keep?: string[];
  /**
   * Component schemas the document refers to and never defines (a `$ref` left dangling by its publisher),
   * each kept as `{}`, which accepts anything: named one by one, so that any other dangling `$ref` still fails.
   */
  undefinedSchemas?: string[];
}

/** What `trim` is asked beyond the operations: a `TrimSpec`'s own options. */
export type TrimOptions = Omit<TrimSpec, 'operations'>;

const ANNOTATIONS = new Set(['description', 'summary', 'example', 'examples', 'externalDocs', 'tags']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Without annotations; names under `properties` are data, never annotations. */
function stripAnnotations(node: Json, parentKey = ''): Json {
  if (Array.isArray(node)) return node.map((item) => stripAnnotations(item));
  if (node === null || typeof node !== 'object') return node;
  const kept: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    const isName = parentKey === 'properties' || parentKey === 'patternProperties';
    if (!isName && (ANNOTATIONS.has(key) || key.startsWith('x-'))) continue;
    kept[key] = stripAnnotations(value, key);
  }
  return kept;
}

function resolvePointer(document: Json, pointer: string): Json {
  let node = document;
  for (const raw of pointer.replace(/^#\//, '').split('/')) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    node = (node as Record<string, Json>)[key] as Json;
    if (node === undefined) throw new Error(`Unresolvable $ref ${pointer}`);
  }
  return node;
}

/** Every local `$ref` reachable from `roots`, transitively. */
function reachableRefs(document: Json, roots: Json[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const node = queue.pop();
    if (Array.isArray(node)) queue.push(...node);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && !seen.has(value)) {
          seen.add(value);
          queue.push(resolvePointer(document, value));
        } else queue.push(value);
      }
    }
  }
  return seen;
}

export function trim(
  document: Record<string, Json>,
  operations: Record<string, string[]>,
  source: string,
  options: TrimOptions = {},
) {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [path, methods] of Object.entries(operations)) {
    const item = (document.paths as Record<string, Record<string, Json>>)[path];
    if (!item) throw new Error(`The document has no path ${path}`);
    paths[path] = {};
    for (const method of methods) {
      const operation = item[method];
      if (!operation) throw new Error(`The document has no ${method} ${path}`);
      const kept = options.requestsOnly
        ? Object.fromEntries(
            Object.entries(operation as Record<string, Json>).filter(([key]) => key !== 'responses'),
          )
        : operation;
      paths[path][method] = stripAnnotations(kept);
    }
    if (item.parameters) paths[path].parameters = stripAnnotations(item.parameters);
  }
  // Annotations go before refs are followed: examples refer to components that validate nothing.
  const stripped = {
    ...document,
    components: withUndefinedSchemas(
      stripAnnotations(document.components ?? {}) as Record<string, Json>,
      options.undefinedSchemas ?? [],
    ),
  } as Json;
  const kept = (options.keep ?? []).map((name) => ({ $ref: `#/components/schemas/${name}` }) as Json);
  for (const ref of kept) resolvePointer(stripped, (ref as { $ref: string }).$ref);
  const components: Record<string, Record<string, Json>> = {};
  for (const ref of reachableRefs(stripped, [...Object.values(paths), ...kept])) {
    const [section, kind, entry, ...deeper] = ref.replace(/^#\//, '').split('/');
    if (section !== 'components' || !kind || !entry || deeper.length > 0) {
      throw new Error(`A $ref outside components, which the trim does not keep: ${ref}`);
    }
    components[kind] ??= {};
    components[kind][entry] = resolvePointer(stripped, `#/components/${kind}/${entry}`);
  }
  for (const kind of Object.keys(components)) {
    components[kind] = Object.fromEntries(
      Object.entries(components[kind] as Record<string, Json>).sort(([a], [b]) => a.localeCompare(b)),
    );
  }
  // `x-trimmed-from` goes in after the annotations are stripped: it is an `x-` key itself.
  const { openapi, info, ...rest } = stripAnnotations({
    openapi: document.openapi as Json,
    info: pick(document.info as Record<string, Json>, ['title', 'version', 'license']),
    paths,
    components,
  } as Json) as Record<string, Json>;
  return { openapi, info, 'x-trimmed-from': source, ...rest } as Record<string, Json> & {
    'x-trimmed-from': string;
  };
}

/** The components with each named undefined schema as `{}`; a name the document does define is a mistake. */
function withUndefinedSchemas(components: Record<string, Json>, names: readonly string[]): Json {
  const schemas = { ...(components.schemas as Record<string, Json> | undefined) };
  for (const name of names) {
    if (name in schemas) throw new Error(`The document defines ${name}: drop it from undefinedSchemas`);
    schemas[name] = {};
  }
  return { ...components, schemas };
}

function pick(object: Record<string, Json>, keys: string[]): Json {
  return Object.fromEntries(keys.filter((key) => key in object).map((key) => [key, object[key] as Json]));
}

async function parseYaml(text: string): Promise<Json> {
  // js-yaml comes with the OpenAPI linter (@stoplight/spectral-cli).
  const yamlModule: string = 'js-yaml'; // untyped, and no dependency of ours: resolved at run time only
  const { load: parse } = (await import(yamlModule)) as { load: (text: string) => unknown };
  return parse(text) as Json;
}

async function load(file: string): Promise<Record<string, Json>> {
  if (statSync(file).isDirectory()) return assembleSplitDocument(file);
  const text = readFileSync(file, 'utf8');
  if (/\.ya?ml$/.test(file)) return (await parseYaml(text)) as Record<string, Json>;
  return JSON.parse(text) as Record<string, Json>;
}

/** A split document (`swagger.yaml`, `paths/*.yaml`, `components/<kind>/<any folder>/<name>.yaml`) as one. */
async function assembleSplitDocument(folder: string): Promise<Record<string, Json>> {
  const document = (await parseYaml(readFileSync(join(folder, 'swagger.yaml'), 'utf8'))) as Record<
    string,
    Json
  >;
  const yamlFiles = (dir: string) =>
    (readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.endsWith('.yaml')).sort();
  const paths: Record<string, Json> = {};
  for (const name of yamlFiles(join(folder, 'paths'))) {
    const path = `/${basename(name, '.yaml').replaceAll('@', '/').replace(/^_.+/, '')}`;
    paths[path] = await parseYaml(readFileSync(join(folder, 'paths', name), 'utf8'));
  }
  const components: Record<string, Record<string, Json>> = {};
  for (const kind of readdirSync(join(folder, 'components'))) {
    if (!statSync(join(folder, 'components', kind)).isDirectory()) continue;
    components[kind] = {};
    for (const name of yamlFiles(join(folder, 'components', kind))) {
      const text = readFileSync(join(folder, 'components', kind, name), 'utf8');
      components[kind][basename(name).replace(/\..*$/, '')] = await parseYaml(text);
    }
  }
  return { ...document, paths, components };
}

/** What to trim and where to write it: a PSP folder's `<name>.trim.json`, the trimmed document beside it. */
function specOf(trimFile: string): { spec: TrimSpec; out: URL } | undefined {
  if (!trimFile.endsWith('.trim.json')) return undefined;
  const spec = JSON.parse(readFileSync(trimFile, 'utf8')) as TrimSpec;
  return { spec, out: pathToFileURL(resolve(trimFile.replace(/\.trim\.json$/, '.trimmed.json'))) };
}

if (import.meta.main) {
  const [psp, file, source] = process.argv.slice(2);
  const found = psp ? specOf(psp) : undefined;
  if (!found || !file) {
    console.error(
      "usage: node test/contracts/trim.ts <a PSP folder's test/contract/<name>.trim.json> <full document or folder> [source note]",
    );
    process.exit(2);
  }
  const { spec, out } = found;
  const { operations, ...options } = spec;
  const trimmed = trim(await load(file), operations, source ?? file, options);
  writeFileSync(out, `${JSON.stringify(trimmed, null, 2)}\n`);
  console.log(`wrote ${out.pathname}`);
}
