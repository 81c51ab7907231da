import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { bundleSizeBudget } from '../budgets.ts';
import { asShippedRatio, coldStartRatio, servedDocumentsGzipBytes } from '../bundles.ts';

const kb = (bytes: number) => `${fmt(bytes / 1024, 1)} KB`;

/**
 * Each Lambda bundle against the bare bundle of the SDK clients it carries (docs/decisions.md#bundle-budget), by
 * the same budget twice: what its cold start loads (index.mjs and its static chunks, gzipped) against the bare
 * clients' asset without their PSP SDKs (`coldStartRatio`), and the whole asset as shipped (gzipped, chunks
 * included) against the bare asset, as the bundle test judges both.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    for (const bundle of bundles.filter((b) => b.baseline !== undefined)) {
      const baseline = bundles.find((candidate) => candidate.name === bundle.baseline);
      if (!baseline) throw new Error(`no baseline bundle ${bundle.baseline}`);
      const bareWithoutPsps = {
        bytes: baseline.bytes - baseline.pspChunkBytes,
        gzipBytes: baseline.gzipBytes - baseline.pspChunkGzipBytes,
      };
      bench.row({
        measure: 'bundle at cold start (min / gzip)',
        subject: bundle.name,
        value: `${kb(bundle.coldBytes)} / ${kb(bundle.coldGzipBytes)}`,
        baseline: `${kb(bareWithoutPsps.bytes)} / ${kb(bareWithoutPsps.gzipBytes)} without PSP SDKs (cold start ${kb(baseline.coldBytes)} / ${kb(baseline.coldGzipBytes)}) ${baseline.name}`,
        ratio: coldStartRatio(bundle, baseline),
        budget: { max: bundleSizeBudget(bundle.name, 'coldStart') },
      });
      const served = servedDocumentsGzipBytes(bundle);
      bench.row({
        measure: 'asset as shipped (min / gzip)',
        subject: bundle.name,
        value: `${kb(bundle.bytes)} / ${kb(bundle.gzipBytes)}${served ? `, less ${kb(served)} of a document it serves` : ''}`,
        baseline: `${kb(baseline.bytes)} / ${kb(baseline.gzipBytes)} ${baseline.name}`,
        ratio: asShippedRatio(bundle, baseline),
        budget: { max: bundleSizeBudget(bundle.name, 'asShipped') },
      });
    }
    bench.record(
      'bundles',
      bundles.map(({ file: _file, inputs: _inputs, carries, ...sizes }) => ({
        ...sizes,
        carries: carries && Object.fromEntries(carries),
      })),
    );
  },
} satisfies BenchRow;
