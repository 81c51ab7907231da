import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { bundleSizeBudget } from '../budgets.ts';

const kb = (bytes: number) => `${fmt(bytes / 1024, 1)} KB`;

/**
 * Each Lambda bundle, gzipped as shipped, against the bare bundle of the SDK clients it carries: what a cold
 * start loads (index.mjs and its static chunks), with the whole asset's minified size beside it.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    for (const bundle of bundles.filter((b) => b.baseline !== undefined)) {
      const baseline = bundles.find((candidate) => candidate.name === bundle.baseline);
      if (!baseline) throw new Error(`no baseline bundle ${bundle.baseline}`);
      bench.row({
        measure: 'bundle at cold start (min / gzip)',
        subject: bundle.name,
        value: `${kb(bundle.coldBytes)} / ${kb(bundle.coldGzipBytes)} (asset ${kb(bundle.bytes)})`,
        baseline: `${kb(baseline.coldBytes)} / ${kb(baseline.coldGzipBytes)} (asset ${kb(baseline.bytes)}) ${baseline.name}`,
        // Judged on the whole asset as shipped (gzipped), as the bundle test does; what a cold start loads is
        // shown first, and what it costs is the cold-import rows' budget.
        ratio: bundle.gzipBytes / baseline.gzipBytes,
        budget: { max: bundleSizeBudget(bundle.name) },
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
