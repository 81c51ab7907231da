import type { Amount } from './money.ts';
import type { FailureClass } from './payment-failure.ts';
import type { PaymentMethod } from './payment-methods.ts';

/**
 * Observed outcomes of each connection's sessions (docs/orchestration.md#observed-outcomes): what the sessions it
 * opened became, counted by segment in time buckets. Pure: segments, buckets and the windows read from them.
 */
export const OUTCOMES = ['opened', 'paid', 'failed', 'left', 'outage'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type OutcomeCounts = Record<Outcome, number>;

export const NO_OUTCOMES: OutcomeCounts = Object.freeze({
  opened: 0,
  paid: 0,
  failed: 0,
  left: 0,
  outage: 0,
});

/** Amount bands in major units of the link's currency: coarse on purpose, so each segment gathers sessions. */
export const AMOUNT_BANDS = ['0-10', '10-100', '100-1000', '1000+'] as const;
export type AmountBand = (typeof AMOUNT_BANDS)[number];

/** Where sessions are alike: the currency, the link's payment method when it names one, the amount band. */
export interface Segment {
  currency: string;
  payment_method: PaymentMethod | 'any';
  amount_band: AmountBand;
}

export function amountBand(amount: Amount): AmountBand {
  const major = Number(amount.value);
  if (major < 10) return '0-10';
  if (major < 100) return '10-100';
  return major < 1000 ? '100-1000' : '1000+';
}

/** A link that names exactly one method is in that method's segment; naming none or several is `any`. */
export function segmentOf(amount: Amount, methods: readonly PaymentMethod[] | null | undefined): Segment {
  const only = methods?.length === 1 ? methods[0] : undefined;
  return { currency: amount.currency, payment_method: only ?? 'any', amount_band: amountBand(amount) };
}

export const segmentKey = (segment: Segment): string =>
  `${segment.currency}|${segment.payment_method}|${segment.amount_band}`;

export function parseSegmentKey(key: string): Segment {
  const [currency = '', method = 'any', band = '0-10'] = key.split('|');
  return { currency, payment_method: method as Segment['payment_method'], amount_band: band as AmountBand };
}

/** What `outcomeOf` reads of a payment (functions/domain/payment.ts). */
interface PaymentStage {
  status: 'pending' | 'succeeded' | 'failed' | 'canceled' | 'expired';
  session_id: string | null;
  failure?: { class: FailureClass } | null | undefined;
}

/**
 * What a payment's change says about its connection: a session opened, or an open session that became paid,
 * failed (the PSP declined), left (expired, or canceled at the PSP or by us after the buyer went elsewhere) or
 * ended in an outage (a failure of class `outage`: the PSP failed, not the buyer; counted apart from declines and
 * out of the paid share, docs/orchestration.md#observed-outcomes). Failed openings (`psp_unavailable`) are health,
 * not outcomes: they never had a session.
 */
export function outcomeOf(after: PaymentStage, before: PaymentStage | undefined): Outcome | undefined {
  if (!before) return after.session_id !== null && after.status === 'pending' ? 'opened' : undefined;
  if (before.status !== 'pending' || after.status === 'pending') return undefined;
  if (after.status === 'succeeded') return 'paid';
  if (after.status !== 'failed') return 'left';
  return after.failure?.class === 'outage' ? 'outage' : 'failed';
}

/** The buckets counts are kept in: five minutes for the last hour, an hour for the last day. */
export const GRANULARITIES = { minutes: 5 * 60_000, hours: 3_600_000 } as const;
export type Granularity = keyof typeof GRANULARITIES;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

export const bucketStart = (at: Date, granularity: Granularity): number =>
  Math.floor(at.getTime() / GRANULARITIES[granularity]) * GRANULARITIES[granularity];

/**
 * The fees a connection's PSP reported (`fee_source: "reported"`) for payments in one segment, summed in minor
 * units of the segment's currency: what cost and value routing learn its fee from (functions/domain/learned-fees.ts).
 */
export interface ReportedFees {
  /** Payments whose reported fee is in the sums. */
  count: number;
  /** Their amounts, summed. */
  amount_minor: number;
  /** Their fees, summed. */
  fee_minor: number;
}

export const NO_REPORTED_FEES: ReportedFees = Object.freeze({ count: 0, amount_minor: 0, fee_minor: 0 });

export const addReportedFees = (a: ReportedFees, b: ReportedFees | undefined): ReportedFees => ({
  count: a.count + (b?.count ?? 0),
  amount_minor: a.amount_minor + (b?.amount_minor ?? 0),
  fee_minor: a.fee_minor + (b?.fee_minor ?? 0),
});

/** One stored counter: a connection's counts in one segment and one bucket. */
export interface OutcomeBucket {
  connection_id: string;
  segment: string;
  granularity: Granularity;
  /** Epoch ms of the bucket's start. */
  start: number;
  /** What happened: every outcome counted once. */
  counts: OutcomeCounts;
  /**
   * What learning reads: each outcome at its weight (functions/domain/outcome-weights.ts), a flood of one
   * client's unpaid outcomes not at all. Absent: the counts themselves (counters written before weights).
   */
  weighted?: OutcomeCounts | undefined;
  /** The fees reported in the bucket (hour buckets only); absent: none. */
  fees?: ReportedFees | undefined;
}

/** Counts over the sliding windows, each ending now. */
export interface CountWindows {
  last_hour: OutcomeCounts;
  last_24h: OutcomeCounts;
  /**
   * The hour buckets of the last two hours (two to three hours, as the day is 24 to 25): what a Thompson draw reads
   * beside the last hour when they agree (`drawEvidence`, functions/domain/strategies.ts). Absent: not read.
   */
  last_2h?: OutcomeCounts | undefined;
}

/** The sliding windows of one connection in one segment. */
export interface OutcomeWindows extends CountWindows {
  /** The same windows as learning weighs them (`OutcomeBucket.weighted`); absent: the counts themselves. */
  weighted?: CountWindows | undefined;
  /** The fees its PSP reported over the last 24 hours; absent: none. */
  reported_fees?: ReportedFees | undefined;
}

export const addCounts = (a: OutcomeCounts, b: Partial<OutcomeCounts>): OutcomeCounts => ({
  opened: a.opened + (b.opened ?? 0),
  paid: a.paid + (b.paid ?? 0),
  failed: a.failed + (b.failed ?? 0),
  left: a.left + (b.left ?? 0),
  outage: a.outage + (b.outage ?? 0),
});

/**
 * A window's counts without those of a shorter window it contains (the day without its last hour), never below 0:
 * the two are read from buckets of their own.
 */
export function countsWithout(whole: OutcomeCounts, part: OutcomeCounts): OutcomeCounts {
  const rest = (outcome: keyof OutcomeCounts) => Math.max(0, whole[outcome] - part[outcome]);
  return {
    opened: rest('opened'),
    paid: rest('paid'),
    failed: rest('failed'),
    left: rest('left'),
    outage: rest('outage'),
  };
}

/** Where windows start at a given time: the bucket starts each one counts from. */
interface WindowStarts {
  hour: number;
  twoHours: number;
  day: number;
}

/** The windows a bucket counts in. */
function windowsCounting(bucket: OutcomeBucket, from: WindowStarts): (keyof CountWindows)[] {
  if (bucket.granularity === 'minutes') return bucket.start >= from.hour ? ['last_hour'] : [];
  if (bucket.start < from.day) return [];
  return bucket.start >= from.twoHours ? ['last_24h', 'last_2h'] : ['last_24h'];
}

const noWindows = (): Required<CountWindows> => ({
  last_hour: NO_OUTCOMES,
  last_24h: NO_OUTCOMES,
  last_2h: NO_OUTCOMES,
});

/**
 * The windows at `now`, by connection and segment key: the last hour from the five-minute buckets that started
 * within it (up to five minutes more than an hour), the last two hours and the last day from the hour buckets
 * likewise.
 */
export function windowsOf(
  buckets: readonly OutcomeBucket[],
  now: Date,
): Map<string, Map<string, OutcomeWindows>> {
  const from: WindowStarts = {
    hour: bucketStart(new Date(now.getTime() - HOUR_MS), 'minutes'),
    twoHours: bucketStart(new Date(now.getTime() - 2 * HOUR_MS), 'hours'),
    day: bucketStart(new Date(now.getTime() - DAY_MS), 'hours'),
  };
  type Windows = Required<CountWindows> & { weighted: Required<CountWindows>; reported_fees: ReportedFees };
  const result = new Map<string, Map<string, Windows>>();
  for (const bucket of buckets) {
    const counting = windowsCounting(bucket, from);
    if (counting.length === 0) continue;
    const segments = result.get(bucket.connection_id) ?? new Map<string, Windows>();
    result.set(bucket.connection_id, segments);
    const windows = segments.get(bucket.segment) ?? {
      ...noWindows(),
      weighted: noWindows(),
      reported_fees: NO_REPORTED_FEES,
    };
    for (const window of counting) {
      windows[window] = addCounts(windows[window], bucket.counts);
      windows.weighted[window] = addCounts(windows.weighted[window], bucket.weighted ?? bucket.counts);
    }
    if (bucket.granularity === 'hours') {
      windows.reported_fees = addReportedFees(windows.reported_fees, bucket.fees);
    }
    segments.set(bucket.segment, windows);
  }
  return result;
}

/**
 * Sessions whose outcome is known (paid, failed or left): what a paid share is measured on. An outage is not
 * among them: the PSP failing while a session was open says nothing of how likely its buyers are to pay, and a
 * decline table's `outage` must not make a connection look like one whose buyers are declined.
 */
export const decided = (counts: OutcomeCounts): number => counts.paid + counts.failed + counts.left;

/** The share of decided sessions that were paid; null with none decided. */
export const paidShare = (counts: OutcomeCounts): number | null =>
  decided(counts) === 0 ? null : counts.paid / decided(counts);
