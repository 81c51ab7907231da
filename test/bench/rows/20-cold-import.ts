import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';
import { PSP_SDKS } from '../bundles.ts';
import { measureColdImports, pairedCpuRatio } from '../cold-import.ts';

/**
 * Each bundle's cold import (CPU, in a fresh process with the stack's environment) against its baseline's in the
 * same round: the bare SDK clients it carries, built without a source map, as a user without our code would.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    console.error(`cold imports: ${bench.plan.importRounds} fresh processes per bundle, interleaved`);
    const imports = measureColdImports(bundles, bench.plan.importRounds);
    const time = (t: { wallMs: number; cpuMs: number }) =>
      `${fmt(t.cpuMs, 1)} ms CPU, ${fmt(t.wallMs, 1)} ms wall`;
    for (const bundle of bundles.filter((b) => b.baseline !== undefined)) {
      const own = imports.get(bundle.name);
      const baseline = imports.get(bundle.baseline as string);
      if (!own || !baseline) continue;
      const psps = PSP_SDKS.filter((sdk) => bundle.carries?.has(sdk)).length;
      bench.row({
        measure: 'cold import (median)',
        subject: bundle.name,
        value: time(own),
        baseline: time(baseline),
        ratio: pairedCpuRatio(own, baseline),
        budget: { max: psps > 1 ? budgets.coldImportSeveralPsps : budgets.coldImport },
      });
    }
    bench.record('coldImportMs', Object.fromEntries(imports));
  },
} satisfies BenchRow;
