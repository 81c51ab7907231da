import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Amount } from '../../functions/domain/money.ts';
import type { PaymentMethod } from '../../functions/domain/payment-methods.ts';
import { sandboxConnection } from '../support/connection-fixture.ts';

/**
 * The worlds of the routing simulation (docs/performance.md#routing-that-learns, bench row 80-routing): who pays
 * where, and when it is known. Each world is a stream of `CHECKOUTS` checkouts, one every `ARRIVAL_MS` of simulated
 * time (about 11 hours), over connections whose true paid shares the simulation knows and routing does not.
 */
export const CHECKOUTS = 20_000;
/** One checkout every this many ms of simulated time: 20,000 of them span about 11 hours. */
export const ARRIVAL_MS = 2_000;
/** A card session's outcome (paid, declined or left) is known this long after it opened. */
export const OUTCOME_AFTER_MS = 3 * 60_000;
/** A bank transfer's outcome is known an hour after its session opened. */
export const BANK_TRANSFER_AFTER_MS = 60 * 60_000;
/** Every link charges this: each strategy learns from every checkout of a segment. */
export const AMOUNT: Amount = { currency: 'EUR', value: '50.00' };

/** One checkout of the stream: what its link asks (its segment), the same for every strategy. */
export interface Checkout {
  methods: PaymentMethod[] | undefined;
}

export const WORLD_NAMES = ['step', 'gradual', 'four', 'segments', 'delayed', 'bursts'] as const;
export type WorldName = (typeof WORLD_NAMES)[number];

export interface World {
  name: WorldName;
  /** What happens in it, for charts and tables. */
  title: string;
  connections: readonly PspConnection[];
  /** Static priority's order, and the holdout's baseline. */
  priority: readonly string[];
  /** The checkout at `index`, from a draw uniform in [0, 1) that is the same for every strategy. */
  checkout(index: number, draw: number): Checkout;
  /** The true probability that a session at `id` for checkout `index` is paid. */
  trueShare(id: string, index: number, checkout: Checkout): number;
  outcomeAfterMs(checkout: Checkout): number;
  /**
   * Whether a session at `id` for checkout `index` that is not paid failed because its PSP did (an outage, which
   * learning counts apart and which feeds the connection's health) rather than by a decline; absent: never.
   */
  outage?: (id: string, index: number) => boolean;
  /** The checkout from which static priority's first connection is worse: the after-drift target's start. */
  driftAt: number | undefined;
}

const ACCOUNT = 'acct_routing_bench';
const connection = (id: string, percent: number, fixed: number) =>
  sandboxConnection(id, {
    account: ACCOUNT,
    fees: [{ percent, fixed }],
    created_at: '2026-11-28T00:00:00.000Z',
  });

export const BENCH_ACCOUNT = ACCOUNT;
/** A, B and C of issue 36: C's fees are twice A's; D, of the four-connection world, is the cheapest. */
const A = connection('pc_A', 1.4, 0.25);
const B = connection('pc_B', 1.6, 0.25);
const C = connection('pc_C', 2.8, 0.5);
const D = connection('pc_D', 1.2, 0.2);
const THIRD = CHECKOUTS / 3;

const cards: Checkout = { methods: undefined };
const anyCheckout = () => cards;
const cardDelay = () => OUTCOME_AFTER_MS;

/** A falls from 0.85 to 0.55 after the first third; B 0.78; C 0.80 (issue 36's world). */
const stepShare = (id: string, index: number) => {
  if (id === A.id) return index < THIRD ? 0.85 : 0.55;
  return id === B.id ? 0.78 : 0.8;
};

const step: World = {
  name: 'step',
  title: 'A falls from 0.85 to 0.55 at once, a third in',
  connections: [A, B, C],
  priority: [A.id, B.id, C.id],
  checkout: anyCheckout,
  trueShare: stepShare,
  outcomeAfterMs: cardDelay,
  driftAt: THIRD,
};

const gradual: World = {
  ...step,
  name: 'gradual',
  title: 'A slides from 0.85 to 0.55 over the middle third',
  trueShare: (id, index) => {
    if (id !== A.id) return stepShare(id, index);
    const progress = Math.min(1, Math.max(0, (index - THIRD) / THIRD));
    return 0.85 - 0.3 * progress;
  },
};

const four: World = {
  ...step,
  name: 'four',
  title: 'Four connections: A falls a third in, D rises from 0.70 to 0.88 halfway',
  connections: [A, B, C, D],
  priority: [A.id, B.id, C.id, D.id],
  trueShare: (id, index) => {
    if (id !== D.id) return stepShare(id, index);
    return index < CHECKOUTS / 2 ? 0.7 : 0.88;
  },
};

/** Half the links ask for cards, half for iDEAL: A is the best for cards and the worst for iDEAL, B the reverse. */
const segments: World = {
  name: 'segments',
  title: 'A best for cards and worst for iDEAL, B the reverse',
  connections: [A, B, C],
  priority: [A.id, B.id, C.id],
  checkout: (_index, draw) => ({ methods: [draw < 0.5 ? 'card' : 'ideal'] }),
  trueShare: (id, _index, checkout) => {
    const card = checkout.methods?.[0] === 'card';
    if (id === A.id) return card ? 0.88 : 0.6;
    if (id === B.id) return card ? 0.62 : 0.86;
    return 0.75;
  },
  outcomeAfterMs: cardDelay,
  driftAt: undefined,
};

/** 40% of links are paid by SEPA direct debit, whose outcome is known an hour later; A's drop hits both. */
const delayed: World = {
  ...step,
  name: 'delayed',
  title: 'Step drift with 40% bank transfers, known an hour later',
  checkout: (_index, draw) => ({ methods: [draw < 0.4 ? 'sepa_debit' : 'card'] }),
  outcomeAfterMs: (checkout) =>
    checkout.methods?.[0] === 'sepa_debit' ? BANK_TRANSFER_AFTER_MS : OUTCOME_AFTER_MS,
};

/**
 * B is the best (0.86) but for 15 minutes of every 2 hours it pays only 0.20 of its sessions: its PSP fails
 * after the sessions opened, so those it does not pay end in an outage (a code its decline table classes
 * `outage`, such as "issuer unavailable").
 */
export const BURST_EVERY = (2 * 3_600_000) / ARRIVAL_MS;
export const BURST_LENGTH = (15 * 60_000) / ARRIVAL_MS;
const inBurst = (index: number) => index % BURST_EVERY >= BURST_EVERY - BURST_LENGTH;
const bursts: World = {
  name: 'bursts',
  title: 'B the best, but paying 0.20 for 15 minutes of every 2 hours, the rest outages',
  connections: [A, B, C],
  priority: [B.id, A.id, C.id],
  checkout: anyCheckout,
  trueShare: (id, index) => {
    if (id === B.id) return inBurst(index) ? 0.2 : 0.86;
    return id === A.id ? 0.8 : 0.78;
  },
  outage: (id, index) => id === B.id && inBurst(index),
  outcomeAfterMs: cardDelay,
  driftAt: undefined,
};

export const WORLDS: Record<WorldName, World> = { step, gradual, four, segments, delayed, bursts };
