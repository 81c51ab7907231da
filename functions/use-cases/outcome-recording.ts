import { BoundedCache } from '../bounded-cache.ts';
import { BUILT_IN_SANDBOX_ID } from '../domain/connection.ts';
import { reportedFeeOf } from '../domain/learned-fees.ts';
import {
  CLIENT_LOOKBACK_MS,
  OUTCOME_WEIGHTS,
  type Weighing,
  weighOutcome,
} from '../domain/outcome-weights.ts';
import {
  addCounts,
  addReportedFees,
  bucketStart,
  DAY_MS,
  GRANULARITIES,
  type Granularity,
  HOUR_MS,
  NO_OUTCOMES,
  NO_REPORTED_FEES,
  type Outcome,
  type OutcomeBucket,
  type OutcomeCounts,
  type OutcomeWindows,
  outcomeOf,
  type ReportedFees,
  segmentKey,
  segmentOf,
  windowsOf,
} from '../domain/outcomes.ts';
import type { Payment } from '../domain/payment.ts';
import { type ArmBucket, addArmCounts, armChangeOf } from '../domain/uplift.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { ArmCounterStore, OutcomeCounterStore } from '../ports/outcome-counters.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { OutageHealth } from './outage-health.ts';

/**
 * Observed outcomes (docs/orchestration.md#observed-outcomes), written and read at a bounded rate: each
 * container adds up its outcomes in memory and flushes them at most every `flushEveryMs`, one ADD per bucket
 * item of its own shard; reads go through a per-container cache at most `maxAgeMs` old. Counts not yet flushed
 * when a container dies are lost: they are statistics, and a few seconds of one container's share is noise. The arms
 * of `optimize` rules (docs/orchestration.md#uplift) are added up and flushed the same way.
 */
export interface OutcomeRecorderOptions {
  store: OutcomeCounterStore;
  /** Where the arms are counted; absent: they are not. */
  arms?: ArmCounterStore | undefined;
  /** The shard this container writes (uniform in [0, OUTCOME_SHARDS)). */
  shard: number;
  flushEveryMs: number;
  now: () => Date;
}

export class OutcomeRecorder {
  private readonly options: OutcomeRecorderOptions;
  private pending = new Map<string, OutcomeBucket>();
  private pendingArms = new Map<string, ArmBucket>();
  private lastFlush: number;

  constructor(options: OutcomeRecorderOptions) {
    this.options = options;
    this.lastFlush = options.now().getTime();
  }

  /**
   * Counts one outcome of `connectionId` in `segment` (a `segmentKey`) at `at`, in both granularities: once as it
   * happened, and at `weight` for learning (`OUTCOME_WEIGHTS`; 0 for an outcome that does not count). A paid
   * outcome's fee its PSP reported (`reportedFeeOf`) goes in the same hour bucket's item, no write of its own.
   */
  record(
    connectionId: string,
    segment: string,
    outcome: Outcome,
    at: Date,
    weight = OUTCOME_WEIGHTS[outcome],
    fees?: ReportedFees,
  ): void {
    this.add(connectionId, segment, at, { [outcome]: 1 }, { [outcome]: weight }, fees);
  }

  /** Adds `weight` (negative: takes it back) to what learning reads of an outcome already counted at `at`. */
  reweigh(connectionId: string, segment: string, outcome: Outcome, at: Date, weight: number): void {
    this.add(connectionId, segment, at, {}, { [outcome]: weight });
  }

  /** Adds a payment's outcome to its rule's arm (`armChangeOf`). */
  recordArm(change: ArmBucket): void {
    const key = [
      change.account,
      change.mode,
      change.day,
      change.rule,
      change.goal,
      change.arm,
      change.segment,
    ].join('#');
    const known = this.pendingArms.get(key);
    this.pendingArms.set(
      key,
      known ? { ...known, counts: addArmCounts(known.counts, change.counts) } : change,
    );
  }

  private add(
    connectionId: string,
    segment: string,
    at: Date,
    counts: Partial<OutcomeCounts>,
    weighted: Partial<OutcomeCounts>,
    fees?: ReportedFees,
  ): void {
    for (const granularity of Object.keys(GRANULARITIES) as Granularity[]) {
      const start = bucketStart(at, granularity);
      const key = `${connectionId}#${granularity}#${start}#${segment}`;
      const bucket = this.pending.get(key) ?? {
        connection_id: connectionId,
        segment,
        granularity,
        start,
        counts: NO_OUTCOMES,
        weighted: NO_OUTCOMES,
      };
      this.pending.set(key, {
        ...bucket,
        counts: addCounts(bucket.counts, counts),
        weighted: addCounts(bucket.weighted ?? NO_OUTCOMES, weighted),
        // Fees are learned over the last day: only its hour buckets keep them.
        ...(fees && granularity === 'hours'
          ? { fees: addReportedFees(bucket.fees ?? NO_REPORTED_FEES, fees) }
          : {}),
      });
    }
  }

  /** Flushes when the interval has passed since the last flush; a failed flush keeps nothing (see above). */
  async flushIfDue(): Promise<void> {
    if (this.options.now().getTime() - this.lastFlush < this.options.flushEveryMs) return;
    await this.flush();
  }

  async flush(): Promise<void> {
    this.lastFlush = this.options.now().getTime();
    const buckets = [...this.pending.values()];
    const arms = [...this.pendingArms.values()];
    this.pending = new Map();
    this.pendingArms = new Map();
    const { store, shard } = this.options;
    await Promise.all([
      buckets.length === 0
        ? undefined
        : store.add(buckets, shard).catch((error: unknown) => {
            logger.warn('Outcome counts not recorded', { buckets: buckets.length, error });
          }),
      arms.length === 0 || !this.options.arms
        ? undefined
        : this.options.arms.add(arms, shard).catch((error: unknown) => {
            logger.warn('Arm counts not recorded', { buckets: arms.length, error });
          }),
    ]);
  }
}

/** The segment a payment's outcomes count in: its routing decision's, else its amount's (older payments). */
function segmentOfPayment(payment: Payment): string | undefined {
  if (payment.routing) return segmentKey(payment.routing.segment);
  return payment.amount ? segmentKey(segmentOf(payment.amount, undefined)) : undefined;
}

/**
 * The payment repository, counting what each saved change says about its connection (`outcomeOf`) once the
 * write succeeded: every path that moves a payment (checkout, notifications, the sweeper) is counted alike. An
 * unpaid outcome is weighed against its client's others at the connection (`weighOutcome`), read from the link's
 * payments of the last `CLIENT_LOOKBACK_MS`; a flood is counted in the `OutcomesIgnored` metric. Outages also
 * feed the connection's health (`OutageHealth`).
 */
export function countingPayments(
  inner: PaymentRepository,
  recorder: OutcomeRecorder,
  outages?: OutageHealth,
): PaymentRepository {
  return {
    get: (linkId, mode, id) => inner.get(linkId, mode, id),
    listOfLink: (linkId, mode) => inner.listOfLink(linkId, mode),
    listOfLinkSince: (linkId, mode, since) => inner.listOfLinkSince(linkId, mode, since),
    dueForCheck: (now, limit) => inner.dueForCheck(now, limit),
    pendingOfConnection: (connectionId) => inner.pendingOfConnection(connectionId),
    async save(payment, before) {
      await inner.save(payment, before);
      // The built-in sandbox serves every test account under one id: its counts would mix tenants.
      if (payment.connection_id === BUILT_IN_SANDBOX_ID) return;
      const outcome = outcomeOf(payment, before);
      if (!outcome) return;
      await outages?.observe(payment, outcome);
      const segment = segmentOfPayment(payment);
      if (!segment) return;
      countWeighed(recorder, payment, segment, outcome, await weighed(inner, payment, outcome));
      const arm = armChangeOf(payment, outcome);
      if (arm) recorder.recordArm(arm);
      await recorder.flushIfDue();
    },
  };
}

function countWeighed(
  recorder: OutcomeRecorder,
  payment: Payment,
  segment: string,
  outcome: Outcome,
  weighing: Weighing,
): void {
  const at = new Date(payment.updated_at);
  recorder.record(
    payment.connection_id,
    segment,
    outcome,
    at,
    weighing.kind === 'count' ? weighing.weight : 0,
    outcome === 'paid' ? reportedFeeOf(payment) : undefined,
  );
  if (weighing.kind === 'count') return;
  putMetrics({ OutcomesIgnored: 1 }, { connection: payment.connection_id });
  const back = weighing.takeBack;
  const backSegment = back && segmentOfPayment(back.payment);
  if (!back || !backSegment) return;
  recorder.reweigh(
    back.payment.connection_id,
    backSegment,
    back.outcome,
    new Date(back.payment.updated_at),
    -back.weight,
  );
}

/** How the outcome counts (`weighOutcome`); when the link's payments cannot be read, at its weight. */
async function weighed(inner: PaymentRepository, payment: Payment, outcome: Outcome): Promise<Weighing> {
  const weight = OUTCOME_WEIGHTS[outcome];
  // Only an unpaid outcome of a known client can be part of a flood: nothing to read for the others.
  if ((outcome !== 'failed' && outcome !== 'left') || payment.opened_by === undefined) {
    return { kind: 'count', weight };
  }
  const since = new Date(Date.parse(payment.updated_at) - CLIENT_LOOKBACK_MS);
  try {
    return weighOutcome(payment, outcome, await inner.listOfLinkSince(payment.link_id, payment.mode, since));
  } catch (error) {
    logger.warn('Outcome weighed without its client history', { payment_id: payment.id, error });
    return { kind: 'count', weight };
  }
}

/** The windows of each connection by segment key, read through a per-container cache. */
export class ObservedOutcomes {
  private readonly store: OutcomeCounterStore;
  private readonly maxAgeMs: number;
  private readonly now: () => Date;
  private readonly cache = new BoundedCache<string, { at: number; windows: Map<string, OutcomeWindows> }>(
    1000,
  );

  constructor(store: OutcomeCounterStore, options: { maxAgeMs: number; now: () => Date }) {
    this.store = store;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now;
  }

  async windows(connectionIds: readonly string[]): Promise<Map<string, Map<string, OutcomeWindows>>> {
    const entries = await Promise.all(
      connectionIds.map(async (id) => [id, await this.ofConnection(id)] as const),
    );
    return new Map(entries);
  }

  private async ofConnection(connectionId: string): Promise<Map<string, OutcomeWindows>> {
    const now = this.now();
    const cached = this.cache.get(connectionId);
    if (cached && now.getTime() - cached.at <= this.maxAgeMs) return cached.windows;
    const since = {
      minutes: bucketStart(new Date(now.getTime() - HOUR_MS), 'minutes'),
      hours: bucketStart(new Date(now.getTime() - DAY_MS), 'hours'),
    };
    const buckets = await this.store.read(connectionId, since);
    const windows = windowsOf(buckets, now).get(connectionId) ?? new Map<string, OutcomeWindows>();
    this.cache.set(connectionId, { at: now.getTime(), windows });
    return windows;
  }
}
