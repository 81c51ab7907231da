import { CHAOS_FAULTS, CHAOS_PLAN, chaosFaults, chaosStackOptions, runChaos } from '../../support/chaos.ts';
import { startTestStack } from '../../support/test-stack.ts';
import type { BenchRow } from '../bench.ts';
import { fmt } from '../bench.ts';

/**
 * The chaos run of `npm test` (test/support/chaos.ts) on a stack of its own in this process, under the fault
 * mix: what was injected, what the client retried, and how webhooks fared (docs/performance.md#under-faults).
 * Its budget is the guarantees: no webhook lost, none broken.
 */
export default {
  async measure(bench) {
    const faults = chaosFaults();
    const plan = bench.plan.quick
      ? { ...CHAOS_PLAN, links: 100, pays: 50, cancels: 15, refunds: 15, races: 2, subscriptions: 4 }
      : CHAOS_PLAN;
    console.error(`chaos: FAULTS=${CHAOS_FAULTS} seed ${faults.seed}`);
    const stack = await startTestStack(chaosStackOptions(faults));
    try {
      const report = await runChaos(stack, plan);
      const injected = Object.entries(report.injected)
        .map(([name, count]) => `${name} ${count}`)
        .join(', ');
      const { webhooks } = report;
      bench.row({
        measure: `chaos (seed ${faults.seed})`,
        subject:
          `${plan.links} links, ${plan.pays} paid, ${plan.cancels} canceled, ${plan.refunds} refunded; ` +
          `${plan.races} max_payments links raced by their buyers at once; ` +
          `${plan.subscriptions} subscriptions renewed by racing test clocks`,
        value:
          `${fmt(Object.values(report.injected).reduce((sum, count) => sum + count, 0))} faults (${injected}); ` +
          `${fmt(report.retried)} requests retried; webhooks: ${webhooks.events} events, ${webhooks.delayed} delayed, ` +
          `${webhooks.duplicates} delivered twice, ${webhooks.lost} lost; ` +
          `race: ${report.races.served} of ${report.races.buyers} buyers served, ${report.races.paid} paid, ` +
          `${report.races.oversold} oversold; renewals: ${report.renewals.charged} charged, ` +
          `${report.renewals.renewals} recorded, ${report.renewals.doubled} periods charged twice, ` +
          `${report.renewals.lost} lost; ${report.violations.length} broken guarantees; ` +
          `${report.seconds} s`,
        baseline: '',
        ratio:
          webhooks.lost === 0 &&
          report.races.oversold === 0 &&
          report.renewals.doubled + report.renewals.lost === 0 &&
          report.violations.length === 0
            ? 1
            : 0,
        budget: { min: 1 },
      });
      bench.record('chaos', { seed: faults.seed, plan, ...report });
    } finally {
      await stack.stop();
    }
  },
} satisfies BenchRow;
