import { PSP_SDKS } from '../baseline-sdks.ts';
import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';
import { budgets } from '../budgets.ts';
import type { Bundle } from '../bundles.ts';
import { type ImportPair, type ImportTime, measurePairedImports } from '../cold-import.ts';

/**
 * Each bundle's cold import (CPU, in a fresh process with the stack's environment) against its baseline's, the two
 * imported one right after the other: the bare SDK clients it carries, built without a source map, as a user
 * without our code would. For a function that can reach a PSP, two more (docs/performance.md#cold-start): its cold
 * import against the same function built without any PSP SDK (what the PSPs cost a cold start that calls none),
 * and each PSP's first call (loading that SDK's chunks after `index.mjs`) against the same first call in its bare
 * baseline.
 */
export default {
  async measure(bench) {
    const bundles = await bench.bundles();
    const byName = new Map(bundles.map((bundle) => [bundle.name, bundle]));
    const handlers = bundles.filter((bundle) => bundle.baseline !== undefined);
    const whole = (bundle: Bundle) => ({ file: bundle.file });
    const rows: (ImportPair & {
      measure: string;
      subjectName: string;
      baselineLabel: string;
      budget: number;
    })[] = [];
    for (const bundle of handlers) {
      const baseline = byName.get(bundle.baseline as string) as Bundle;
      const psps = PSP_SDKS.filter((sdk) => bundle.carries?.has(sdk)).length;
      rows.push({
        name: bundle.name,
        subject: whole(bundle),
        baseline: whole(baseline),
        measure: 'cold import (median)',
        subjectName: bundle.name,
        baselineLabel: '',
        budget: psps > 1 ? budgets.coldImportSeveralPsps : budgets.coldImport,
      });
      const without = bundle.withoutPsps && byName.get(bundle.withoutPsps);
      if (without) {
        rows.push({
          name: `${bundle.name} vs ${without.name}`,
          subject: whole(bundle),
          baseline: whole(without),
          measure: 'cold import vs no PSP SDK',
          subjectName: bundle.name,
          baselineLabel: ' built without PSP SDKs',
          budget: budgets.coldImportPspSdks,
        });
      }
      for (const [sdk, chunks] of bundle.firstCall ?? []) {
        const bare = baseline.firstCall?.get(sdk);
        if (!bare) continue;
        rows.push({
          name: `${bundle.name}:${sdk}`,
          subject: { file: bundle.file, chunks },
          baseline: { file: baseline.file, chunks: bare },
          measure: `first ${sdk} call's load`,
          subjectName: bundle.name,
          baselineLabel: ` the bare ${sdk} SDK's`,
          budget: budgets.firstPspCall,
        });
      }
    }
    console.error(
      `cold imports: ${bench.plan.importRounds} rounds of each pair (subject, baseline) of processes`,
    );
    const measured = measurePairedImports(rows, bench.plan.importRounds);
    const time = (t: ImportTime) => `${fmt(t.cpuMs, 1)} ms CPU, ${fmt(t.wallMs, 1)} ms wall`;
    // The table groups rows by measure, as before pairing: every function's cold import, then the PSP rows.
    for (const measure of [...new Set(rows.map((row) => row.measure))]) {
      for (const row of rows.filter((candidate) => candidate.measure === measure)) {
        const pair = measured.get(row.name);
        if (!pair) continue;
        bench.row({
          measure: row.measure,
          subject: row.subjectName,
          value: time(pair.subject),
          baseline: `${time(pair.baseline)}${row.baselineLabel}`,
          ratio: pair.ratio,
          budget: { max: row.budget },
        });
      }
    }
    bench.record('coldImportMs', Object.fromEntries(measured));
  },
} satisfies BenchRow;
