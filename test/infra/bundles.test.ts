import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function.ts';
import { budgets } from '../bench/budgets.ts';
import { BASELINE, type Bundle, buildBundles, handlerNames } from '../bench/bundles.ts';

/**
 * The bundle-size guard of issue 6 (docs/performance.md): every Lambda bundle, built exactly as `cdk synth`
 * builds it, stays within `budgets.bundleSize` of the bare DynamoDB client + lib-dynamodb bundle. Sizes, not
 * times, so it holds on any machine.
 */
const outdir = mkdtempSync(join(tmpdir(), 'bundles-'));
let bundles: Bundle[];
let baseline: Bundle;

beforeAll(async () => {
  bundles = await buildBundles(outdir);
  baseline = bundles.find((bundle) => bundle.name === BASELINE) as Bundle;
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const handlerBundles = () => bundles.filter((bundle) => bundle !== baseline);

describe('Lambda bundles', () => {
  it('are built for every handler file', () => {
    expect(handlerBundles().map((bundle) => bundle.name)).toEqual(handlerNames());
  });

  it(`each stay within ${budgets.bundleSize}x the bare DynamoDB client bundle, minified and gzipped`, () => {
    const over = handlerBundles()
      .map((bundle) => ({
        bundle: bundle.name,
        minified: `${bundle.bytes} B = ${(bundle.bytes / baseline.bytes).toFixed(3)}x`,
        gzipped: `${bundle.gzipBytes} B = ${(bundle.gzipBytes / baseline.gzipBytes).toFixed(3)}x`,
        within:
          bundle.bytes <= budgets.bundleSize * baseline.bytes &&
          bundle.gzipBytes <= budgets.bundleSize * baseline.gzipBytes,
      }))
      .filter((entry) => !entry.within);
    // On failure: `npm run bench` shows the sizes; esbuild's metafile (test/bench/bundles.ts) shows who grew.
    expect(over).toEqual([]);
  });

  it('carry none of what was removed for size: classic zod, zod locales but English, the currency-codes data', () => {
    const unwanted = handlerBundles().flatMap((bundle) =>
      bundle.inputs
        .filter(
          (input) =>
            /node_modules\/zod\/v4\/classic\//.test(input) ||
            /node_modules\/zod\/v4\/locales\/(?!en\.js)/.test(input) ||
            /node_modules\/currency-codes\//.test(input),
        )
        .map((input) => `${bundle.name}: ${input}`),
    );
    // Lambda code imports zod from functions/zod.ts and currencies from functions/domain/iso-4217.ts.
    expect(unwanted).toEqual([]);
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
      const shipped = readFileSync(join(cdkOut, asset, 'index.mjs'));
      const built = readFileSync(bundles.find((bundle) => bundle.name === 'route-fallback')?.file as string);
      expect(shipped.equals(built)).toBe(true);
    } finally {
      rmSync(cdkOut, { recursive: true, force: true });
    }
  });
});
