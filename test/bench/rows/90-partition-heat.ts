import { marshall } from '@aws-sdk/util-dynamodb';
import { INDEX_SHARDS } from '../../../functions/adapters/dynamodb/table-schema.ts';
import { AMOUNT_BANDS } from '../../../functions/domain/outcomes.ts';
import { OUTCOME_SHARDS } from '../../../functions/ports/outcome-counters.ts';
import type { BenchRow, BenchServer } from '../bench.ts';
import { fmt } from '../bench.ts';
import { armHeat, type CounterModel, counterHeat } from '../outcome-counter-heat.ts';
import { heatByPattern, hottest, type KeyHeat, PARTITION_LIMITS } from '../partition-heat.ts';
import { itemSize } from '../store-cost.ts';
import { hostedLife, type LifeResult, steadyLife } from './70-cost-per-link.ts';

/** The rates the key design must carry (issue 39, docs/scaling.md#partition-heat), in links a second. */
const TARGETS = { spread: 20_000, oneMerchant: 3_000 } as const;
const SPREAD_MERCHANTS = 10_000;
/** The hottest patterns shown for each shape. */
const SHOWN = 5;

const shapes = [
  {
    name: `spread over ${fmt(SPREAD_MERCHANTS)} merchants`,
    merchants: SPREAD_MERCHANTS,
    target: TARGETS.spread,
  },
  { name: 'all from one merchant', merchants: 1, target: TARGETS.oneMerchant },
];

/**
 * The outcome counters as deployed (docs/scaling.md#outcome-counters): the flush and cache periods are
 * functions/config.ts's defaults, a checkout visit keeps its container 400 ms (the cost row's model), and a
 * merchant's links fall in one currency, any method and the four amount bands.
 */
const counters: CounterModel = {
  shards: OUTCOME_SHARDS,
  flushMs: 5_000,
  cacheMs: 10_000,
  outcomesPerLink: 2,
  segments: AMOUNT_BANDS.length,
  readerMs: 400,
  itemBytes: itemSize(
    marshall({
      pk: `OUTCOMES#pc_${'x'.repeat(24)}#${OUTCOME_SHARDS - 1}`,
      // The largest: an hour's item, with outages and the fees its PSP reported (functions/domain/learned-fees.ts).
      sk: 'hours#2026-11-28T10:00:00.000Z#EUR|any|100-1000',
      opened: 1200,
      paid: 1000,
      failed: 150,
      left: 50,
      outage: 10,
      // The same counts as learning weighs them (functions/domain/outcome-weights.ts).
      w_opened: 1200,
      w_paid: 1000,
      w_failed: 120,
      w_left: 25,
      w_outage: 10,
      f_count: 1000,
      f_amount: 45_000_000,
      f_fee: 1_300_000,
      ttl: 1_764_500_000,
    }),
  ),
};

const describe = (heat: KeyHeat) =>
  `${heat.target} ${heat.pattern} (${heat.scope}${heat.shards > 1 ? `, ${heat.shards} shards` : ''}): ` +
  `${fmt(heat.wru, 1)} WRU, ${fmt(heat.rru, 1)} RRU a link`;

/**
 * Partition heat (docs/scaling.md#partition-heat): the life of the cost row (create, checkout visit, payment,
 * webhook) through the store recorder, its units by partition key of the table and of each index, and the
 * rate of links at which the hottest partition reaches DynamoDB's per-partition limits, for traffic spread over
 * many merchants and for traffic from one. Its budget is the issue's: 20,000 and 3,000 links a second.
 */
export default {
  async serve(server: BenchServer) {
    return { life: await steadyLife(server), account: server.account };
  },

  async measure(bench) {
    const { life, account } = await bench.serve<{ life: LifeResult; account: string }>();
    const partitions = hostedLife(life)
      .filter((step) => !step.optional)
      .flatMap((step) => step.calls.flatMap((call) => call.partitions));
    const heats = heatByPattern(partitions, account, () => INDEX_SHARDS);
    for (const shape of shapes) {
      const ranked = hottest(heats, shape.merchants);
      for (const heat of ranked.slice(0, SHOWN).filter((h) => Number.isFinite(h.ceiling))) {
        bench.row({
          measure: `partition heat, ${shape.name}`,
          subject: describe(heat),
          value: `${fmt(heat.ceiling)} links/s`,
          baseline: `${fmt(PARTITION_LIMITS.wru)} WRU/s, ${fmt(PARTITION_LIMITS.rru)} RRU/s a partition`,
        });
      }
      const modelled = counterHeat(counters, shape.target, shape.merchants);
      bench.row({
        measure: `partition heat, ${shape.name}`,
        subject:
          `table OUTCOMES#<pc>#<shard> (merchant, ${counters.shards} shards, modelled): ` +
          `${fmt(modelled.wruPerPartition)} WRU/s, ${fmt(modelled.rruPerPartition)} RRU/s a partition at ${fmt(shape.target)} links/s`,
        value: `${fmt(modelled.ceiling)} links/s`,
        baseline: `${fmt(PARTITION_LIMITS.wru)} WRU/s, ${fmt(PARTITION_LIMITS.rru)} RRU/s a partition`,
      });
      // Every link of the shape under an `optimize` rule: the worst case of the arms' counters.
      const arms = armHeat(counters, shape.target, shape.merchants);
      bench.row({
        measure: `partition heat, ${shape.name}`,
        subject:
          `table UPLIFT#<acc>#<mode>#<shard> (merchant, ${counters.shards} shards, modelled, every link optimized): ` +
          `${fmt(arms.wruPerPartition)} WRU/s a partition at ${fmt(shape.target)} links/s`,
        value: `${fmt(arms.ceiling)} links/s`,
        baseline: `${fmt(PARTITION_LIMITS.wru)} WRU/s a partition`,
      });
      const ceiling = Math.min(
        ranked[0]?.ceiling ?? Number.POSITIVE_INFINITY,
        modelled.ceiling,
        arms.ceiling,
      );
      bench.row({
        measure: `partition heat, ${shape.name}`,
        subject: 'ceiling (hottest partition at its limit)',
        value: Number.isFinite(ceiling) ? `${fmt(ceiling)} links/s` : 'none',
        baseline: `target ${fmt(shape.target)} links/s`,
        ratio: Math.min(ceiling / shape.target, 1e6),
        budget: { min: 1 },
      });
    }
    const modelled = shapes.map((shape) => ({
      shape: shape.name,
      ...counterHeat(counters, shape.target, shape.merchants),
    }));
    bench.record('partitionHeat', {
      heats,
      counters: { model: counters, modelled },
      limits: PARTITION_LIMITS,
      targets: TARGETS,
    });
  },
} satisfies BenchRow;
