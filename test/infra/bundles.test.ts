import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { budgets } from '../bench/budgets.ts';
import { BASELINE, type Bundle, baselineFor, buildBundles, handlerNames } from '../bench/bundles.ts';

/**
 * The bundle-size guard of issue 6 (docs/performance.md): every Lambda bundle, built exactly as `cdk synth`
 * builds it, stays within `budgets.bundleSize` of the bare DynamoDB client + lib-dynamodb bundle. Sizes, not
 * times, so it holds on any machine.
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

  it('are judged against the SDK clients their functions need, and only those', () => {
    expect(baselineOf(handlerBundles().find((b) => b.name === 'get-payment-link') as Bundle).name).toBe(
      BASELINE,
    );
    expect(handlerBundles().find((b) => b.name === 'redeliver-event')?.baseline).toBe(`${BASELINE}+sqs`);
    expect(handlerBundles().find((b) => b.name === 'checkout-page')?.baseline).toBe(
      `${BASELINE}+secrets-manager+stripe`,
    );
    // A function that uses no PSP must not carry the Stripe SDK (it is loaded lazily by the Stripe adapter).
    const withStripe = handlerBundles()
      .filter((bundle) => bundle.inputs.some((input) => input.includes('node_modules/stripe/')))
      .map((bundle) => bundle.name);
    expect(withStripe.every((name) => baselineFor(name).endsWith('+stripe'))).toBe(true);
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
