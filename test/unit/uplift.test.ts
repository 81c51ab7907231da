import { describe, expect, it } from 'vitest';
import type { Payment } from '../../functions/domain/payment.ts';
import type { RoutingDecision } from '../../functions/domain/routing-decision.ts';
import {
  type ArmBucket,
  type ArmCounts,
  armChangeOf,
  differenceInterval,
  meanDifference,
  NO_ARM_COUNTS,
  routingUplift,
  wilson,
} from '../../functions/domain/uplift.ts';

const now = new Date('2026-11-30T12:00:00.000Z');

const bucket = (
  overrides: Partial<Omit<ArmBucket, 'counts'>> & { counts: Partial<ArmCounts> },
): ArmBucket => ({
  account: 'acme',
  mode: 'live',
  day: '2026-11-30',
  rule: 'euro cards',
  goal: 'conversion',
  arm: 'learning',
  segment: 'EUR|any|10-100',
  ...overrides,
  counts: { ...NO_ARM_COUNTS, ...overrides.counts },
});

/** An arm of `decided` checkouts, `paid` of them paid at `amount` with `fee`. */
const arm = (paid: number, decided: number, amount = 50, fee = 0): Partial<ArmCounts> => ({
  opened: decided,
  paid,
  failed: decided - paid,
  amount: paid * amount,
  net: paid * (amount - fee),
  net_sq: paid * (amount - fee) ** 2,
});

describe("Wilson's and Newcombe's intervals", () => {
  it("give Newcombe's published figures (Statistics in Medicine 1998)", () => {
    // One proportion, 81 of 263: 0.2553 to 0.3662 (Newcombe 1998a, table II, method 3).
    const one = wilson(81, 263);
    expect(one.low).toBeCloseTo(0.2553, 4);
    expect(one.high).toBeCloseTo(0.3662, 4);
    // Differences, Newcombe 1998b, table II, method 10 (the hybrid score interval): its examples (a), (b), (d), (e).
    const published = [
      [56, 70, 48, 80, 0.0524, 0.3339],
      [9, 10, 3, 10, 0.1705, 0.809],
      [5, 56, 0, 29, -0.0381, 0.1926],
      [0, 10, 0, 20, -0.1611, 0.2775],
    ] as const;
    for (const [paid, decided, heldPaid, heldDecided, low, high] of published) {
      const interval = differenceInterval([
        { weight: 1, learning: { paid, decided }, holdout: { paid: heldPaid, decided: heldDecided } },
      ]);
      expect(interval?.estimate).toBeCloseTo(paid / decided - heldPaid / heldDecided, 10);
      expect(interval?.low).toBeCloseTo(low, 4);
      expect(interval?.high).toBeCloseTo(high, 4);
    }
  });

  it('stay inside [-1, 1] at the edges, where a Wald interval would collapse to a point', () => {
    const edge = differenceInterval([
      { weight: 1, learning: { paid: 10, decided: 10 }, holdout: { paid: 0, decided: 10 } },
    ]);
    expect(edge?.estimate).toBe(1);
    expect(edge?.high).toBeLessThanOrEqual(1);
    expect(edge?.low).toBeGreaterThan(0.5);
    expect(edge?.low).toBeLessThan(1);
    expect(
      differenceInterval([
        { weight: 1, learning: { paid: 1, decided: 2 }, holdout: { paid: 0, decided: 0 } },
      ]),
    ).toBeNull();
  });

  it('give a difference of means its normal interval', () => {
    const samples = (values: number[]) => ({
      n: values.length,
      sum: values.reduce((a, b) => a + b, 0),
      sumSq: values.reduce((a, b) => a + b * b, 0),
    });
    const interval = meanDifference(samples([2, 4, 6, 8]), samples([1, 2, 3]));
    // 5 − 2 = 3; variances 20/3 and 1: 1.96 × sqrt(20/12 + 1/3) = 2.772.
    expect(interval?.estimate).toBe(3);
    expect(interval?.high).toBeCloseTo(3 + 2.7719, 3);
    expect(meanDifference(samples([1]), samples([1, 2]))).toBeNull();
  });
});

describe('the uplift of optimize rules', () => {
  it('compares each rule with its holdout, and says what the difference implies', () => {
    const uplift = routingUplift(
      [
        bucket({ counts: arm(800, 1000, 40) }),
        bucket({ segment: 'USD|any|10-100', counts: arm(170, 200, 60) }),
        bucket({ arm: 'holdout', counts: arm(45, 60) }),
        bucket({ arm: 'holdout', counts: { opened: 3 } }),
      ],
      '7d',
      now,
    );
    const [rule] = uplift.rules;

    expect(uplift.since).toBe('2026-11-24');
    expect(rule?.learning).toEqual({ checkouts: 1200, decided: 1200, paid: 970, paid_share: 970 / 1200 });
    expect(rule?.holdout).toEqual({ checkouts: 63, decided: 60, paid: 45, paid_share: 0.75 });
    const expected = differenceInterval([
      { weight: 1, learning: { paid: 970, decided: 1200 }, holdout: { paid: 45, decided: 60 } },
    ]);
    expect(rule?.difference_points?.estimate).toBeCloseTo((expected?.estimate ?? 0) * 100, 2);
    expect(rule?.difference_points?.low).toBeCloseTo((expected?.low ?? 0) * 100, 2);
    expect(rule?.difference_points?.excludes_zero).toBe((expected?.low ?? 0) > 0);
    expect(rule?.extra_payments?.estimate).toBeCloseTo((expected?.estimate ?? 0) * 1200, 0);
    // In each currency, at the learning arm's mean paid amount there: 1,000 checkouts at 40.00 EUR.
    const eur = rule?.extra_amount.find((amount) => amount.currency === 'EUR');
    expect(Number(eur?.estimate)).toBeCloseTo((expected?.estimate ?? 0) * 1000 * 40, 0);
    expect(rule?.extra_amount.map((amount) => amount.currency)).toEqual(['EUR', 'USD']);
    expect(rule?.net).toBeNull();
    expect(uplift.overall.difference_points).toEqual(rule?.difference_points);
  });

  it('gives rules that optimize cost or value the uplift net of fees, per currency', () => {
    const uplift = routingUplift(
      [
        bucket({ goal: 'value', counts: arm(80, 100, 50, 1) }),
        bucket({ goal: 'value', arm: 'holdout', counts: arm(60, 100, 50, 3) }),
      ],
      '30d',
      now,
    );
    const net = uplift.rules[0]?.net?.[0];

    expect(net?.currency).toBe('EUR');
    expect(net?.learning_per_checkout).toBe('39.20');
    expect(net?.holdout_per_checkout).toBe('28.20');
    expect(net?.difference_per_checkout.estimate).toBe('11.00');
    expect(net?.difference_per_checkout.excludes_zero).toBe(true);
    expect(net?.extra.estimate).toBe('1100.00');
  });

  it('weighs rules together by their learning arms, and leaves out a rule without a decided holdout', () => {
    const a = [bucket({ counts: arm(90, 100) }), bucket({ arm: 'holdout', counts: arm(70, 100) })];
    const b = [
      bucket({ rule: 'dollars', counts: arm(150, 300) }),
      bucket({ rule: 'dollars', arm: 'holdout', counts: arm(140, 300) }),
    ];
    const c = [bucket({ rule: 'new', counts: arm(10, 10) })];
    const uplift = routingUplift([...a, ...b, ...c], '7d', now);

    // (100 × 20 + 300 × 3.33) / 400 = 7.5 points; the new rule compares nothing yet.
    expect(uplift.overall.difference_points?.estimate).toBeCloseTo(7.5, 1);
    expect(uplift.overall.extra_payments?.estimate).toBeCloseTo(30, 0);
    expect(uplift.rules.map((rule) => rule.rule)).toEqual(['dollars', 'euro cards', 'new']);
    expect(uplift.rules.find((rule) => rule.rule === 'new')?.difference_points).toBeNull();
  });

  it('counts only the days of the window, and tells a renamed goal apart', () => {
    const uplift = routingUplift(
      [
        bucket({ day: '2026-11-23', counts: arm(1, 1) }),
        bucket({ day: '2026-11-24', counts: arm(2, 2) }),
        bucket({ goal: 'cost', counts: arm(3, 3) }),
      ],
      '7d',
      now,
    );

    expect(uplift.rules.map((rule) => [rule.goal, rule.learning.checkouts])).toEqual([
      ['cost', 3],
      ['conversion', 2],
    ]);
  });
});

describe("what a payment's outcome adds to its rule's arm", () => {
  const decision: RoutingDecision = {
    rule: 'euro cards',
    strategy: 'value',
    segment: { currency: 'EUR', payment_method: 'any', amount_band: '10-100' },
    candidates: [
      {
        connection: 'pc_a',
        paid_share: 0.8,
        sessions: 100,
        expected_fee: 0.95,
        fee_basis: 'configured',
        eliminated: false,
      },
      {
        connection: 'pc_b',
        paid_share: 0.7,
        sessions: 100,
        expected_fee: 0.5,
        fee_basis: 'configured',
        eliminated: false,
      },
    ],
    chosen: 'pc_b',
    exploration: false,
    recovery: false,
    holdout: true,
  };
  const payment = {
    account: 'acme',
    mode: 'live',
    created_at: '2026-11-29T23:59:00.000Z',
    connection_id: 'pc_b',
    amount: { value: '40.00', currency: 'EUR' },
    routing: decision,
  } as Pick<Payment, 'account' | 'mode' | 'created_at' | 'connection_id' | 'amount' | 'routing'>;

  it('counts a checkout on the day it opened, in its arm, a paid one with its amount and its net of fee', () => {
    expect(armChangeOf(payment, 'paid')).toEqual({
      account: 'acme',
      mode: 'live',
      day: '2026-11-29',
      rule: 'euro cards',
      goal: 'value',
      arm: 'holdout',
      segment: 'EUR|any|10-100',
      counts: { ...NO_ARM_COUNTS, paid: 1, amount: 40, net: 39.5, net_sq: 39.5 ** 2 },
    });
    expect(armChangeOf({ ...payment, routing: { ...decision, holdout: false } }, 'opened')?.arm).toBe(
      'learning',
    );
  });

  it('nets a paid checkout of the fee its PSP reported in its currency, and counts an outage as unpaid', () => {
    const fee = (value: string, currency: string, source: 'reported' | 'configured') => ({
      amount: { value, currency },
      net: { value: '0', currency },
      source,
    });
    const netOf = (paid: Pick<Payment, 'fee'>) => armChangeOf({ ...payment, ...paid }, 'paid')?.counts.net;

    expect(netOf({ fee: fee('1.20', 'EUR', 'reported') })).toBe(38.8);
    // Not reported, or in the currency the PSP settles in: the fee the decision expected.
    expect(netOf({ fee: fee('0.80', 'EUR', 'configured') })).toBe(39.5);
    expect(netOf({ fee: fee('1.30', 'USD', 'reported') })).toBe(39.5);
    expect(armChangeOf(payment, 'outage')?.counts).toEqual({ ...NO_ARM_COUNTS, failed: 1 });
  });

  it('counts no recovery, no decision of a rule that does not learn, and no payment without a decision', () => {
    expect(armChangeOf({ ...payment, routing: { ...decision, recovery: true } }, 'failed')).toBeUndefined();
    expect(
      armChangeOf({ ...payment, routing: { ...decision, strategy: 'priority' } }, 'paid'),
    ).toBeUndefined();
    expect(armChangeOf({ ...payment, routing: { ...decision, rule: null } }, 'paid')).toBeUndefined();
    expect(armChangeOf({ ...payment, routing: undefined }, 'paid')).toBeUndefined();
  });
});
