import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { functions } from '../../lib/routes.ts';
import { budgets } from '../bench/budgets.ts';
import { BASELINE_SDKS, type Bundle, buildBundles, handlerNames, PSP_SDKS } from '../bench/bundles.ts';

/**
 * The bundle-size guard (docs/performance.md): every Lambda bundle, built exactly as `cdk synth` builds it,
 * stays within `budgets.bundleSize` of the bare bundle of the SDK clients it carries. Sizes, not times, so it
 * holds on any machine.
 */
const outdir = mkdtempSync(join(tmpdir(), 'bundles-'));
let bundles: Bundle[];

beforeAll(async () => {
  bundles = await buildBundles(outdir);
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const handlerBundles = () => bundles.filter((bundle) => bundle.baseline !== undefined);
const baselineOf = (bundle: Bundle) =>
  bundles.find((candidate) => candidate.name === bundle.baseline) as Bundle;

describe('Lambda bundles', () => {
  it('are built for every handler file', () => {
    expect(handlerBundles().map((bundle) => bundle.name)).toEqual(handlerNames());
  });

  it('are judged against the bare SDK clients and commands they carry, loaded as they load them', () => {
    const baselineOfHandler = (name: string) => handlerBundles().find((b) => b.name === name)?.baseline;
    // Every merchant route counts its rate-limit rejections (functions/metrics.ts): each carries Powertools Metrics.
    expect(baselineOfHandler('get-payment-link')).toMatch(
      /^bare-dynamodb\[[\w,]*GetCommand[\w,]*\]\+powertools-metrics$/,
    );
    expect(baselineOfHandler('redeliver-event')).toMatch(
      /^bare-dynamodb\[[\w,]+\]\+sqs\[SendMessageCommand\]\+powertools-metrics$/,
    );
    // Each PSP adapter loads its SDK with import() when it serves a connection of its PSP: so does the baseline.
    expect(baselineOfHandler('checkout-page')).toMatch(
      /\+lazy-stripe\+lazy-mollie\+lazy-adyen(\[[\w,]+\])?$/,
    );
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

  it(`each stay within ${budgets.bundleSize}x the bare SDK clients they need, minified and gzipped`, () => {
    const over = handlerBundles()
      .map((bundle) => {
        const baseline = baselineOf(bundle);
        return {
          bundle: `${bundle.name} vs ${baseline.name}`,
          minified: `${bundle.bytes} B = ${(bundle.bytes / baseline.bytes).toFixed(3)}x`,
          gzipped: `${bundle.gzipBytes} B = ${(bundle.gzipBytes / baseline.gzipBytes).toFixed(3)}x`,
          within:
            bundle.bytes <= budgets.bundleSize * baseline.bytes &&
            bundle.gzipBytes <= budgets.bundleSize * baseline.gzipBytes,
        };
      })
      .filter((entry) => !entry.within);
    // On failure: `npm run bench` shows the sizes; esbuild's metafile (test/bench/bundles.ts) shows who grew.
    expect(over).toEqual([]);
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
    const carriers = (pattern: RegExp) =>
      handlerBundles()
        .filter((bundle) => bundle.inputs.some((input) => pattern.test(input)))
        .map((bundle) => bundle.name);
    // esbuild cannot tree-shake CommonJS: a stray import carries the whole library into a bundle.
    expect(carriers(/node_modules\/standardwebhooks\//)).toEqual(['deliver-webhook']);
    expect(carriers(/node_modules\/request-filtering-agent\//)).toEqual(['deliver-webhook']);
  });

  it('carry no wiring: nothing of lib/ (the CDK and local stacks) runs inside a function', () => {
    const wiring = handlerBundles().flatMap((bundle) =>
      bundle.inputs.filter((input) => input.startsWith('lib/')).map((input) => `${bundle.name}: ${input}`),
    );
    expect(wiring).toEqual([]);
  });

  it('are byte for byte what cdk synth ships', () => {
    const cdkOut = mkdtempSync(join(tmpdir(), 'cdk-out-'));
    try {
      const app = new App({ outdir: cdkOut });
      new ServiceFunction(new Stack(app, 'Bundling'), 'Fallback', {
        handler: 'route-fallback',
        environment: {},
        logRemovalPolicy: RemovalPolicy.DESTROY,
      });
      app.synth();
      const asset = readdirSync(cdkOut).find((entry) => entry.startsWith('asset.')) as string;
      const shippedFile = join(cdkOut, asset, 'index.mjs');
      const builtFile = bundles.find((bundle) => bundle.name === 'route-fallback')?.file as string;
      expect(readFileSync(shippedFile).equals(readFileSync(builtFile))).toBe(true);
      // Source maps too (but for the relative paths of the sources): Node reads and parses the whole map at
      // each cold start (--enable-source-maps), so neither may carry the sources themselves.
      const mapOf = (file: string) => JSON.parse(readFileSync(`${file}.map`, 'utf8'));
      expect(mapOf(shippedFile).mappings).toBe(mapOf(builtFile).mappings);
      expect(mapOf(shippedFile).sourcesContent).toBeUndefined();
    } finally {
      rmSync(cdkOut, { recursive: true, force: true });
    }
  });
});
