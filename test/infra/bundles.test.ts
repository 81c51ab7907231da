import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { functions } from '../../lib/routes.ts';
import { BASELINE_SDKS, PSP_SDKS } from '../bench/baseline-sdks.ts';
import { budgets, bundleSizeBudget, HELD_OVER_BUDGET, normalBundleBudget } from '../bench/budgets.ts';
import { asShippedRatio, type Bundle, coldStartRatio, handlerNames } from '../bench/bundles.ts';
import { sharedBundles } from '../support/shared-bundles.ts';

/**
 * The bundle-size guard (docs/performance.md): every Lambda bundle, built exactly as `cdk synth` builds it,
 * stays within `budgets.bundleSize` of the bare bundle of the SDK clients it carries. Sizes, not times, so it
 * holds on any machine.
 */
let bundles: Bundle[];

beforeAll(async () => {
  bundles = await sharedBundles();
}, 900_000); // every handler and its baseline: slow on a busy machine

const handlerBundles = () => bundles.filter((bundle) => bundle.baseline !== undefined);
const baselineOf = (bundle: Bundle) =>
  bundles.find((candidate) => candidate.name === bundle.baseline) as Bundle;
/** The handlers whose asset holds bytes of a source file matching `pattern`. */
const carriersOf = (pattern: RegExp) =>
  handlerBundles()
    .filter((bundle) => bundle.inputs.some((input) => pattern.test(input)))
    .map((bundle) => bundle.name);

describe('Lambda bundles', () => {
  it('are built for every handler file', () => {
    expect(handlerBundles().map((bundle) => bundle.name)).toEqual(handlerNames());
  });

  it('are judged against the bare SDK clients and commands they carry, loaded as they load them', () => {
    const baselineOfHandler = (name: string) => handlerBundles().find((b) => b.name === name)?.baseline;
    // Every merchant route counts its rate-limit rejections (functions/metrics.ts): each carries Powertools Metrics;
    // every function logs through Powertools Logger.
    expect(baselineOfHandler('get-payment-link')).toMatch(
      /^bare-dynamodb\[[\w,]*GetCommand[\w,]*\]\+powertools-metrics\+powertools-logger(\[[\w,]+\])?$/,
    );
    expect(baselineOfHandler('redeliver-event')).toMatch(
      /^bare-dynamodb\[[\w,]+\]\+sqs\[SendMessageCommand\]\+powertools-metrics\+powertools-logger(\[[\w,]+\])?$/,
    );
    // Each PSP adapter loads its SDK with import() when it serves a connection of its PSP: so does the baseline.
    expect(baselineOfHandler('checkout-page')).toMatch(
      new RegExp(`${PSP_SDKS.map((sdk) => `\\+lazy-${sdk}(\\[[\\w,]+\\])?`).join('')}$`),
    );
    // The console overview's charts need Vega-Lite and Vega; the console's other pages do not carry them.
    expect(baselineOfHandler('console-overview')).toMatch(/\+vega-lite\+vega$/);
    expect(baselineOfHandler('console')).not.toMatch(/vega/);
    for (const bundle of handlerBundles()) {
      const carried = Object.entries(BASELINE_SDKS)
        .filter(([, sdk]) => bundle.inputs.some((input) => input.includes(`node_modules/${sdk.package}/`)))
        .map(([name]) => name);
      expect([...(bundle.carries?.keys() ?? [])], bundle.name).toEqual(
        carried.includes('dynamodb') ? carried : ['dynamodb', ...carried],
      );
      // The baseline is built from its name: it carries what the name says, so the two cannot drift.
      const baseline = baselineOf(bundle);
      for (const sdk of bundle.carries?.keys() ?? []) {
        const pkg = (BASELINE_SDKS[sdk] as { package: string }).package;
        expect(
          baseline.inputs.some((input) => input.includes(`node_modules/${pkg}/`)),
          `${baseline.name}: ${pkg}`,
        ).toBe(true);
      }
    }
  });

  it('carry a PSP SDK only in functions that talk to PSPs (lib/routes.ts)', () => {
    const talksToPsps = (name: string) =>
      ((functions as Record<string, { secrets?: readonly string[] }>)[name]?.secrets ?? []).includes('psp');
    const strays = handlerBundles()
      .filter((bundle) => !talksToPsps(bundle.name))
      .flatMap((bundle) =>
        PSP_SDKS.filter((sdk) => bundle.carries?.has(sdk)).map((sdk) => `${bundle.name}: ${sdk}`),
      );
    // Each PSP adapter loads its SDK lazily from the PSP registry; a static import elsewhere carries it everywhere.
    expect(strays).toEqual([]);
  });

  it('load no PSP SDK at a cold start: each is in chunks its first call loads, with no other PSP in them', () => {
    const pspPackage = (sdk: string) => (BASELINE_SDKS[sdk] as { package: string }).package;
    const pspInputs = (inputs: readonly string[], sdks: readonly string[]) =>
      inputs.filter((input) => sdks.some((sdk) => input.includes(`node_modules/${pspPackage(sdk)}/`)));
    const reaching = handlerBundles().filter((bundle) => PSP_SDKS.some((sdk) => bundle.carries?.has(sdk)));
    expect(reaching.length).toBeGreaterThan(0);
    for (const bundle of reaching) {
      // index.mjs and what it imports statically: what every cold start parses.
      expect(pspInputs(bundle.coldInputs, PSP_SDKS), bundle.name).toEqual([]);
      for (const sdk of PSP_SDKS.filter((carried) => bundle.carries?.has(carried))) {
        const firstCall = bundle.firstCallInputs?.get(sdk) ?? [];
        expect(pspInputs(firstCall, [sdk]).length, `${bundle.name}: ${sdk}`).toBeGreaterThan(0);
        const others = PSP_SDKS.filter((other) => other !== sdk);
        expect(pspInputs(firstCall, others), `${bundle.name}: ${sdk}`).toEqual([]);
        // Nothing of ours either: the SDK's chunks hold only the SDK (with the node:http the bundles alias, when only
        // the SDK imports it); the adapter is a chunk of its own, loaded when its PSP's first connection is used.
        expect(
          firstCall.filter(
            (input) => !input.includes('node_modules/') && input !== 'functions/clients/node-http.ts',
          ),
          `${bundle.name}: ${sdk}`,
        ).toEqual([]);
      }
    }
  });

  it('ship no chunk nothing imports (esbuild makes one for each import() before tree shaking)', () => {
    for (const bundle of handlerBundles()) {
      const onDisk = readdirSync(dirname(bundle.file)).filter((file) => file.endsWith('.mjs'));
      expect(onDisk.sort(), bundle.name).toEqual(bundle.files.map((file) => basename(file)).sort());
    }
    const withoutPsp = handlerBundles().filter((bundle) => !PSP_SDKS.some((sdk) => bundle.carries?.has(sdk)));
    expect(withoutPsp.length).toBeGreaterThan(0);
    for (const bundle of withoutPsp) expect(bundle.firstCall, bundle.name).toBeUndefined();
  });

  it('carry the KMS client only in the functions that open or seal webhook signing secrets (lib/routes.ts)', () => {
    const withKms = handlerBundles()
      .filter((bundle) => bundle.carries?.has('kms'))
      .map((bundle) => bundle.name)
      .sort();
    expect(withKms).toEqual(
      Object.entries(functions)
        .filter(([, definition]) => (definition as { signingKey?: true | 'seal' }).signingKey)
        .map(([name]) => name)
        .sort(),
    );
  });

  it(`each stay within ${budgets.bundleSize}x the bare SDK clients they need (the console ${budgets.consoleBundleSize}x), gzipped as shipped, chunks included`, () => {
    // The whole asset against the whole bare asset, as before code splitting; what a cold start parses is judged
    // by the cold-import rows of the benchmark (its share of index.mjs and static chunks is shown there).
    const over = handlerBundles()
      .map((bundle) => {
        const baseline = baselineOf(bundle);
        return {
          bundle: `${bundle.name} vs ${baseline.name}`,
          minified: `${bundle.bytes} B = ${(bundle.bytes / baseline.bytes).toFixed(3)}x`,
          gzipped: `${bundle.gzipBytes} B = ${asShippedRatio(bundle, baseline).toFixed(3)}x`,
          within: asShippedRatio(bundle, baseline) <= bundleSizeBudget(bundle.name, 'asShipped'),
        };
      })
      .filter((entry) => !entry.within);
    // On failure: `npm run bench` shows the sizes; esbuild's metafile (test/bench/bundles.ts) shows who grew.
    expect(over).toEqual([]);
  });

  it(`each load at a cold start within ${budgets.bundleSize}x the bare SDK clients they carry (the console ${budgets.consoleBundleSize}x), gzipped, their PSP SDKs aside`, () => {
    // What index.mjs and its static chunks weigh against the bare clients' asset without the PSP SDKs' chunks,
    // which neither loads at a cold start (`coldStartRatio`, docs/decisions.md#bundle-budget).
    const over = handlerBundles()
      .map((bundle) => {
        const ratio = coldStartRatio(bundle, baselineOf(bundle));
        return {
          bundle: bundle.name,
          ratio: ratio.toFixed(3),
          within: ratio <= bundleSizeBudget(bundle.name, 'coldStart'),
        };
      })
      .filter((entry) => !entry.within);
    expect(over).toEqual([]);
  });

  it('hold a function to its measured ceiling only while it is still over its budget (HELD_OVER_BUDGET)', () => {
    // The list only shrinks: a function back under its budget leaves it, so that it cannot grow back unnoticed.
    const backUnder = handlerBundles().flatMap((bundle) => {
      const held = HELD_OVER_BUDGET[bundle.name];
      if (!held) return [];
      const baseline = baselineOf(bundle);
      const ratios = {
        asShipped: asShippedRatio(bundle, baseline),
        coldStart: coldStartRatio(bundle, baseline),
      };
      return (Object.keys(held) as (keyof typeof ratios)[])
        .filter((measure) => ratios[measure] <= normalBundleBudget(bundle.name))
        .map(
          (measure) => `${bundle.name} ${measure}: ${ratios[measure].toFixed(3)}, remove it from the list`,
        );
    });
    expect(backUnder).toEqual([]);
  });

  it('load at a cold start no language’s texts, no form tables and none of the console’s pages: each when needed', () => {
    // Each of these is only reached through an import() (docs/performance.md#a-buyers-cold-start).
    const onDemand = [
      /^functions\/http\/(checkout|console)\/messages\/(en|nl|de|fr|es)\.ts$/,
      /node_modules\/libphonenumber-js\//,
      /node_modules\/postcode-validator\//,
      /^functions\/http\/console\/(pages|links|webhooks|psps|settings|books|keys)\.ts$/,
      /node_modules\/qr\//,
      /node_modules\/csv-stringify\//,
    ];
    for (const name of ['checkout-page', 'console']) {
      const bundle = handlerBundles().find((candidate) => candidate.name === name) as Bundle;
      const loaded = bundle.coldInputs.filter((input) => onDemand.some((pattern) => pattern.test(input)));
      expect(loaded, name).toEqual([]);
    }
    // They are still in the assets, for the requests that need them.
    const checkout = handlerBundles().find((bundle) => bundle.name === 'checkout-page') as Bundle;
    const inChunks = (pattern: RegExp) => checkout.inputs.some((input) => pattern.test(input));
    expect(inChunks(/node_modules\/libphonenumber-js\/metadata\.max/), 'the full phone metadata').toBe(true);
    expect(inChunks(/^functions\/http\/checkout\/messages\/de\.ts$/), 'the German texts').toBe(true);
  });

  it('carry none of what was removed for size: classic zod, any zod locale, the currency-codes data', () => {
    const unwanted = handlerBundles().flatMap((bundle) =>
      bundle.inputs
        .filter(
          (input) =>
            /node_modules\/zod\/v4\/classic\//.test(input) ||
            /node_modules\/zod\/v4\/locales\//.test(input) ||
            /node_modules\/currency-codes\//.test(input),
        )
        .map((input) => `${bundle.name}: ${input}`),
    );
    // Lambda code imports zod from functions/zod.ts and currencies from functions/domain/iso-4217.ts.
    expect(unwanted).toEqual([]);
  });

  it('keep the CommonJS webhook code (signing, the SSRF-filtering agent) in the delivery function only', () => {
    // esbuild cannot tree-shake CommonJS: a stray import carries the whole library into a bundle.
    expect(carriersOf(/node_modules\/standardwebhooks\//)).toEqual(['deliver-webhook']);
    expect(carriersOf(/node_modules\/request-filtering-agent\//)).toEqual(['deliver-webhook']);
  });

  it('never import node:http as an ES module, whose namespace loads undici (functions/clients/node-http.ts)', () => {
    const esmImportOfHttp = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s*)["'](?:node:)?http["']/;
    const importers = handlerBundles().flatMap((bundle) =>
      bundle.files
        .filter((file) => esmImportOfHttp.test(readFileSync(file, 'utf8')))
        .map((file) => `${bundle.name}: ${basename(file)}`),
    );
    // Every import of it (ours, request-filtering-agent's, a PSP SDK's) goes through the alias instead.
    expect(importers).toEqual([]);
    expect(carriersOf(/functions\/clients\/node-http\.ts$/)).toContain('deliver-webhook');
  });

  it('carry no wiring: nothing of lib/ (the CDK and local stacks) runs inside a function', () => {
    const wiring = handlerBundles().flatMap((bundle) =>
      bundle.inputs.filter((input) => input.startsWith('lib/')).map((input) => `${bundle.name}: ${input}`),
    );
    expect(wiring).toEqual([]);
  });

  it('are byte for byte what cdk synth ships', () => {
    const built = bundles.find((bundle) => bundle.name === 'checkout-page') as Bundle;
    // Synthesized beside the build (<build>/<name>/index.mjs), so that the asset's folder is as deep as the bundle's:
    // a chunk's name hashes its source map's relative paths.
    const cdkOut = mkdtempSync(join(dirname(dirname(dirname(built.file))), 'cdk-out-'));
    try {
      // CloudFormation's own validation runs where test/support/synth.ts says, not on this one function's stack.
      const app = new App({ outdir: cdkOut, builtinCloudFormationValidation: false });
      // A function with PSP chunks: the asset is a folder of files, not one.
      new ServiceFunction(new Stack(app, 'Bundling'), 'Checkout', {
        handler: 'checkout-page',
        environment: {},
        logRemovalPolicy: RemovalPolicy.DESTROY,
      });
      app.synth();
      const asset = join(cdkOut, readdirSync(cdkOut).find((entry) => entry.startsWith('asset.')) as string);
      const shipped = readdirSync(asset).filter((file) => file.endsWith('.mjs'));
      // index.mjs and every chunk, under the same names (chunks import each other by relative path).
      expect(shipped.sort()).toEqual(built.files.map((file) => basename(file)).sort());
      expect(shipped).toContain('index.mjs');
      for (const file of shipped) {
        const builtFile = join(dirname(built.file), file);
        expect(readFileSync(join(asset, file)).equals(readFileSync(builtFile)), file).toBe(true);
        // Source maps too (but for the relative paths of the sources): Node reads and parses the whole map at
        // each cold start (--enable-source-maps), so none may carry the sources themselves.
        const mapOf = (path: string) => JSON.parse(readFileSync(`${path}.map`, 'utf8'));
        expect(mapOf(join(asset, file)).mappings, file).toBe(mapOf(builtFile).mappings);
        expect(mapOf(join(asset, file)).sourcesContent, file).toBeUndefined();
      }
    } finally {
      rmSync(cdkOut, { recursive: true, force: true });
    }
  });
});
