import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { OPENAPI_DOCUMENT_JSON } from '../../functions/http/api/openapi-document.ts';
import {
  buildEach,
  esbuildOptions,
  LAMBDA_BUNDLE_FILE,
  pruneUnreachable,
} from '../../lib/bundling/lambda-bundling.ts';

export const projectRoot = join(import.meta.dirname, '..', '..');
const handlersDir = join(projectRoot, 'functions', 'handlers');

import { BASELINE_SDKS, type BaselineSdk, PSP_SDKS } from './baseline-sdks.ts';

/** How a function carries an SDK: imported at module scope, or only through `import()` when first used. */
export type Carriage = 'eager' | 'lazy';

export interface CarriedSdk {
  carriage: Carriage;
  /** The commands of an AWS client that are in the bundle, e.g. `GetCommand`. */
  commands: string[];
  /**
   * For another SDK, the modules of it our code imports when they are not the package's main entry (e.g. the
   * Adyen adapter imports only the checkout services it uses): the baseline imports the same modules.
   */
  modules: string[];
}

const under = (path: string, pkg: string) => path.includes(`node_modules/${pkg}/`);

/**
 * The baseline SDKs a bundle carries, from its metafile: a package is carried when some of its bytes are in the
 * asset (`inOutput`: the inputs of every file of it), and lazily when every import of it from outside the package
 * is a dynamic `import()` (esbuild puts those in chunks of their own, loaded when first called, not at the cold
 * start).
 */
export function carriedSdks(metafile: Metafile, inOutput: readonly string[]): Map<string, CarriedSdk> {
  const carried = new Map<string, CarriedSdk>();
  for (const [name, sdk] of Object.entries(BASELINE_SDKS)) {
    if (name !== 'dynamodb' && !inOutput.some((path) => under(path, sdk.package))) continue;
    const kinds = Object.entries(metafile.inputs)
      .filter(([path]) => !under(path, sdk.package))
      .flatMap(([, input]) => input.imports.filter((imported) => under(imported.path, sdk.package)))
      .map((imported) => imported.kind);
    const commandFile = new RegExp(
      `node_modules/${sdk.client?.commandsFrom}/dist-es/commands/(\\w+Command)\\.js$`,
    );
    const commands = sdk.client
      ? inOutput.map((path) => commandFile.exec(path)?.[1]).filter((command): command is string => !!command)
      : [];
    if (!commands.length && sdk.client?.defaultCommand) commands.push(sdk.client.defaultCommand);
    const specifiers = Object.entries(metafile.inputs)
      .filter(([path]) => !under(path, sdk.package))
      .flatMap(([, input]) => input.imports.filter((imported) => under(imported.path, sdk.package)))
      .map((imported) => imported.original ?? sdk.package);
    const imported = [...new Set(specifiers)];
    // Other modules than the package's main entry: the baseline imports the same ones, the main entry among them
    // when our code imports it too (Powertools Logger's class and its middy middleware).
    const modules = sdk.client || imported.every((specifier) => specifier === sdk.package) ? [] : imported;
    carried.set(name, {
      carriage: kinds.length && kinds.every((kind) => kind === 'dynamic-import') ? 'lazy' : 'eager',
      commands: commands.sort(),
      modules: modules.sort(),
    });
  }
  return carried;
}

/**
 * The baseline's name says what it holds, in a fixed order, e.g.
 * `bare-dynamodb[GetCommand,PutCommand]+sqs[SendMessageCommand]+lazy-stripe`.
 */
export function baselineName(carried: ReadonlyMap<string, CarriedSdk>): string {
  return Object.keys(BASELINE_SDKS)
    .filter((name) => carried.has(name))
    .map((name) => {
      const { carriage, commands, modules } = carried.get(name) as CarriedSdk;
      const parts = [
        ...commands,
        ...modules.map((module) => module.replace(/^.*\//, '').replace(/\.js$/, '')),
      ];
      return `${carriage === 'lazy' ? 'lazy-' : ''}${name}${parts.length ? `[${parts.join(',')}]` : ''}`;
    })
    .join('+')
    .replace(/^/, 'bare-');
}

function baselineSource(carried: ReadonlyMap<string, CarriedSdk>): string {
  const parts = Object.entries(BASELINE_SDKS)
    .filter(([name]) => carried.has(name))
    .map(([name, definition]) => {
      const { carriage, commands, modules } = carried.get(name) as CarriedSdk;
      return { definition, lazy: carriage === 'lazy', commands, modules };
    });
  const imports: string[] = [];
  const moduleScope: string[] = [];
  const handler: string[] = [];
  parts.forEach(({ definition, lazy, commands, modules }, index) => {
    const { binds, client, call } = definition;
    if (modules.length) {
      // The same modules our code imports, kept whole (their namespace escapes), loaded as our code loads them.
      modules.forEach((module, moduleIndex) => {
        const namespace = `sdk${index}_${moduleIndex}`;
        if (lazy) handler.push(`  (globalThis as any).${namespace} = await import('${module}');`);
        else {
          imports.push(`import * as ${namespace} from '${module}';`);
          moduleScope.push(`(globalThis as any).${namespace} = ${namespace};`);
        }
      });
      return;
    }
    const fromCommands = client && client.commandsFrom !== definition.package;
    const named = [...(binds.named ?? []), ...(client && !fromCommands ? commands : [])];
    const clientName = `client${index}`;
    if (lazy) {
      const bindings = [binds.default && `default: ${binds.default}`, ...named].filter(Boolean).join(', ');
      handler.push(`  const { ${bindings} } = await import('${definition.package}');`);
    } else {
      const bindings = [binds.default, named.length ? `{ ${named.join(', ')} }` : undefined].filter(Boolean);
      imports.push(`import ${bindings.join(', ')} from '${definition.package}';`);
    }
    if (client) {
      if (fromCommands) {
        imports.push(
          `import { DynamoDBDocumentClient, ${commands.join(', ')} } from '${client.commandsFrom}';`,
        );
      }
      (lazy ? handler : moduleScope).push(`${lazy ? '  ' : ''}const ${clientName} = ${client.create};`);
      for (const command of commands) handler.push(`  await ${clientName}.send(new ${command}(event));`);
    }
    if (call) handler.push(`  ${call}`);
  });
  return [
    ...imports,
    ...moduleScope,
    'export const handler = async (event: any) => {',
    ...handler,
    '};',
  ].join('\n');
}

export interface Bundle {
  name: string;
  /** For a handler, the name of the baseline bundle it is judged against (see `baselineName`). */
  baseline?: string;
  /** For a handler, the baseline SDKs it carries and how (see `carriedSdks`). */
  carries?: ReadonlyMap<string, CarriedSdk>;
  /** The built index.mjs, as in the Lambda asset; its chunks are beside it. */
  file: string;
  /** Every JavaScript file of the asset (index.mjs and its chunks), absolute. */
  files: string[];
  /** All the asset's JavaScript (minified; gzipped file by file, as the asset's zip does). */
  bytes: number;
  gzipBytes: number;
  /** What a cold start loads: index.mjs and the chunks it imports statically, transitively. */
  coldBytes: number;
  /** The same, gzipped file by file. */
  coldGzipBytes: number;
  /** The source maps shipped next to a handler's files (baselines have none). */
  mapBytes: number;
  /** Every source file that contributed bytes to any file of the asset, relative to the project root. */
  inputs: string[];
  /** The source files a cold start loads (those of `coldBytes`). */
  coldInputs: string[];
  /**
   * For each PSP SDK carried lazily, the chunks its first call loads (its `import()`s, and what they import
   * statically that the cold start has not loaded), absolute.
   */
  firstCall?: ReadonlyMap<string, string[]>;
  /** The source files of those chunks, per PSP SDK. */
  firstCallInputs?: ReadonlyMap<string, string[]>;
  /**
   * The chunks that only PSP SDKs' first calls load (the union of `firstCall`'s, each counted once), minified and
   * gzipped: what the asset ships of the PSP SDKs, that no cold start loads.
   */
  pspChunkBytes: number;
  pspChunkGzipBytes: number;
  /**
   * For a handler that carries a PSP SDK, the name of the same handler built with every PSP SDK left out
   * (external: never loaded), whose cold import is the PSPs' cost's baseline.
   */
  withoutPsps?: string;
}

/** The suffix of a handler built without its PSP SDKs (see `Bundle.withoutPsps`). */
export const WITHOUT_PSPS = '~without-psps';

/**
 * What a handler's cold start loads against the bare SDK clients it carries (docs/decisions.md#bundle-budget):
 * its `index.mjs` and static chunks, gzipped, over the baseline's whole asset as shipped, gzipped, without the
 * PSP SDKs' chunks (which neither loads at a cold start, and whose size is the SDKs', not ours). Code of ours
 * that a function loads only when a request needs it (`import()`: a phone library, a language's texts, a page)
 * is outside it, as the PSP SDKs are.
 */
export const coldStartRatio = (bundle: Bundle, baseline: Bundle): number =>
  bundle.coldGzipBytes / (baseline.gzipBytes - baseline.pspChunkGzipBytes);

/**
 * Documents a function serves as they are, carried as a string constant, by the source file that holds each: their
 * size is the API's description, not code that runs, so an asset that carries one is judged without it
 * (docs/decisions.md#bundle-budget).
 */
const SERVED_DOCUMENTS: Readonly<Record<string, string>> = {
  'functions/http/api/openapi-document.ts': OPENAPI_DOCUMENT_JSON,
};

/** Each served document's size gzipped alone (level 9, as the asset's zip), computed once. */
const servedGzipBytes = new Map<string, number>();

/** What the served documents a bundle carries weigh, gzipped. */
export const servedDocumentsGzipBytes = (bundle: Bundle): number =>
  Object.entries(SERVED_DOCUMENTS)
    .filter(([source]) => bundle.inputs.includes(source))
    .reduce((sum, [source, text]) => {
      if (!servedGzipBytes.has(source)) servedGzipBytes.set(source, gzipSync(text, { level: 9 }).length);
      return sum + (servedGzipBytes.get(source) ?? 0);
    }, 0);

/**
 * A handler's whole asset as shipped against the bare SDK clients' (docs/decisions.md#bundle-budget), both
 * gzipped file by file, less the documents it serves as they are (`SERVED_DOCUMENTS`).
 */
export const asShippedRatio = (bundle: Bundle, baseline: Bundle): number =>
  (bundle.gzipBytes - servedDocumentsGzipBytes(bundle)) / baseline.gzipBytes;

/** Every Lambda entry point: each file of functions/handlers/ (new handlers are picked up on their own). */
export function handlerNames(): string[] {
  return readdirSync(handlersDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
}

/** The output files (relative to the project, as in the metafile) `file` imports statically, itself included. */
function staticClosure(metafile: Metafile, file: string, loaded: ReadonlySet<string> = new Set()): string[] {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || loaded.has(path)) return;
    seen.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(file);
  return [...seen];
}

const inputsOf = (metafile: Metafile, files: readonly string[]) => [
  ...new Set(
    files.flatMap((file) =>
      Object.entries(metafile.outputs[file]?.inputs ?? {})
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path),
    ),
  ),
];

/** The SDKs whose packages every PSP SDK is: left out of a handler's build that measures the PSPs' cost. */
export const PSP_PACKAGES: readonly string[] = PSP_SDKS.map(
  (sdk) => (BASELINE_SDKS[sdk] as BaselineSdk).package,
);

async function buildOne(
  name: string,
  outdir: string,
  source: { entry: string } | { contents: string },
  options: { sourcemap: boolean; external?: readonly string[] },
) {
  const dir = join(outdir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const esbuild = esbuildOptions('entry' in source ? source.entry : '', dir);
  const built = await build({
    ...esbuild,
    ...('contents' in source && {
      entryPoints: undefined,
      stdin: { contents: source.contents, resolveDir: import.meta.dirname, loader: 'ts' as const },
    }),
    ...(!options.sourcemap && { sourcemap: false }),
    external: [...(esbuild.external ?? []), ...(options.external ?? [])],
    absWorkingDir: projectRoot,
    metafile: true,
  });
  const metafile = pruneUnreachable(built.metafile, projectRoot);
  const outputs = Object.keys(metafile.outputs).filter((path) => path.endsWith('.mjs'));
  const entry = outputs.find((path) => path.endsWith(`/${LAMBDA_BUNDLE_FILE}`));
  if (!entry) throw new Error(`esbuild wrote no ${LAMBDA_BUNDLE_FILE} for ${name}`);
  const cold = staticClosure(metafile, entry);
  const loaded = new Set(cold);
  const absolute = (path: string) => join(projectRoot, path);
  const firstCall = new Map<string, string[]>();
  const firstCallInputs = new Map<string, string[]>();
  const pspChunks = new Set<string>();
  for (const sdk of PSP_SDKS) {
    const pkg = (BASELINE_SDKS[sdk] as BaselineSdk).package;
    const roots = outputs.filter((path) => {
      const entryPoint = metafile.outputs[path]?.entryPoint;
      return entryPoint !== undefined && under(entryPoint, pkg);
    });
    if (!roots.length) continue;
    const files = [...new Set(roots.flatMap((root) => staticClosure(metafile, root, loaded)))];
    for (const file of files) pspChunks.add(file);
    firstCall.set(sdk, roots.map(absolute));
    firstCallInputs.set(sdk, inputsOf(metafile, files));
  }
  // Each file gzipped once (level 9, as the asset's zip): the whole asset's sum and the cold start's share both use it.
  const gzipped = new Map(
    outputs.map((path) => [path, gzipSync(readFileSync(absolute(path)), { level: 9 }).length] as const),
  );
  const gzipOf = (path: string) => gzipped.get(path) ?? 0;
  return {
    metafile,
    bundle: {
      name,
      file: absolute(entry),
      files: outputs.map(absolute),
      bytes: outputs.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0),
      gzipBytes: outputs.reduce((sum, path) => sum + gzipOf(path), 0),
      coldBytes: cold.reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0),
      coldGzipBytes: cold.reduce((sum, path) => sum + gzipOf(path), 0),
      mapBytes: options.sourcemap
        ? outputs.reduce((sum, path) => sum + readFileSync(`${absolute(path)}.map`).length, 0)
        : 0,
      inputs: inputsOf(metafile, outputs),
      coldInputs: inputsOf(metafile, cold),
      pspChunkBytes: [...pspChunks].reduce((sum, path) => sum + (metafile.outputs[path]?.bytes ?? 0), 0),
      pspChunkGzipBytes: [...pspChunks].reduce((sum, path) => sum + gzipOf(path), 0),
      ...(firstCall.size && { firstCall, firstCallInputs }),
    } satisfies Bundle,
  };
}

/**
 * Builds every handler with the options `cdk synth` uses (lib/bundling/lambda-bundling.ts), then the baseline of
 * each: the bare SDK clients it carries, built as a user without our code would build them, with the same
 * esbuild options but no source map (nothing of ours to map). Into `outdir/<name>/index.mjs`; baselines last.
 * With `withoutPsps`, each handler that carries a PSP SDK is built a second time without any (the benchmark's
 * baseline of what the PSPs cost a cold start). `read` receives the path of every file esbuild read.
 */
export async function buildBundles(
  outdir: string,
  options: { withoutPsps?: boolean; read?: Set<string> } = {},
): Promise<Bundle[]> {
  const recordRead = ({ metafile }: { metafile: Metafile }) => {
    for (const path of Object.keys(metafile.inputs)) options.read?.add(path);
  };
  const handlers = await buildEach(handlerNames(), async (name) => {
    const entry = join(handlersDir, `${name}.ts`);
    const { metafile, bundle } = await buildOne(name, outdir, { entry }, { sourcemap: true });
    recordRead({ metafile });
    const carries = carriedSdks(metafile, bundle.inputs);
    const handler = { ...bundle, carries, baseline: baselineName(carries) };
    if (!options.withoutPsps || !PSP_SDKS.some((sdk) => carries.has(sdk))) return [handler];
    const without = await buildOne(
      `${name}${WITHOUT_PSPS}`,
      outdir,
      { entry },
      { sourcemap: true, external: PSP_PACKAGES },
    );
    recordRead(without);
    return [{ ...handler, withoutPsps: without.bundle.name }, without.bundle];
  }).then((built) => built.flat());
  const baselineSources = new Map(
    handlers.flatMap((handler) =>
      'carries' in handler ? [[handler.baseline, baselineSource(handler.carries)] as const] : [],
    ),
  );
  const baselines = await buildEach([...baselineSources], async ([name, contents], index) => {
    // Named by what they hold; built in numbered folders, since a name can pass a file name's length.
    const built = await buildOne(`baseline-${index}`, outdir, { contents }, { sourcemap: false });
    recordRead(built);
    return { ...built.bundle, name };
  });
  return [...handlers, ...baselines];
}
