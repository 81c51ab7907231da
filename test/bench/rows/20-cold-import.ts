import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';
import { PSP_SDKS } from '../bundles.ts';
import { type ImportSubject, measureColdImports, pairedCpuRatio } from '../cold-import.ts';

/**
 * Each bundle's cold import (CPU, in a fresh process with the stack's environment) against its baseline's in the
 * same round: the bare SDK clients it carries, built without a source map, as a user without our code would.
 * For a function that can reach a PSP, two more (docs/performance.md#cold-start): its cold import against the same
 * function built without any PSP SDK (what the PSPs cost a cold start that calls none), and each PSP's first call
 * (loading that SDK's chunks after `index.mjs`) against the same first call in its bare baseline.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    const byName = new Map(bundles.map((bundle) => [bundle.name, bundle]));
    // Several functions share a baseline: one subject per name, or its rounds would interleave twice.
    const firstCalls = new Map<string, ImportSubject>();
    for (const bundle of bundles.filter((b) => b.baseline !== undefined)) {
      const baseline = byName.get(bundle.baseline as string);
      for (const [sdk, chunks] of bundle.firstCall ?? []) {
        const bare = baseline?.firstCall?.get(sdk);
        if (!baseline || !bare) continue;
        firstCalls.set(`${bundle.name}:${sdk}`, { name: `${bundle.name}:${sdk}`, file: bundle.file, chunks });
        firstCalls.set(`${baseline.name}:${sdk}`, {
          name: `${baseline.name}:${sdk}`,
          file: baseline.file,
          chunks: bare,
        });
      }
    }
    console.error(`cold imports: ${bench.plan.importRounds} fresh processes per bundle, interleaved`);
    const imports = measureColdImports([...bundles, ...firstCalls.values()], bench.plan.importRounds);
    const time = (t: { wallMs: number; cpuMs: number }) =>
      `${fmt(t.cpuMs, 1)} ms CPU, ${fmt(t.wallMs, 1)} ms wall`;
    const handlers = bundles.filter((b) => b.baseline !== undefined);
    for (const bundle of handlers) {
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
    for (const bundle of handlers.filter((b) => b.withoutPsps)) {
      const own = imports.get(bundle.name);
      const without = imports.get(bundle.withoutPsps as string);
      if (!own || !without) continue;
      bench.row({
        measure: 'cold import vs no PSP SDK',
        subject: bundle.name,
        value: time(own),
        baseline: `${time(without)} built without PSP SDKs`,
        ratio: pairedCpuRatio(own, without),
        budget: { max: budgets.coldImportPspSdks },
      });
    }
    for (const bundle of handlers) {
      for (const sdk of bundle.firstCall?.keys() ?? []) {
        const own = imports.get(`${bundle.name}:${sdk}`);
        const bare = imports.get(`${bundle.baseline}:${sdk}`);
        if (!own || !bare) continue;
        bench.row({
          measure: `first ${sdk} call's load`,
          subject: bundle.name,
          value: time(own),
          baseline: `${time(bare)} the bare ${sdk} SDK's`,
          ratio: pairedCpuRatio(own, bare),
          budget: { max: budgets.firstPspCall },
        });
      }
    }
    bench.record('coldImportMs', Object.fromEntries(imports));
  },
} satisfies BenchRow;
