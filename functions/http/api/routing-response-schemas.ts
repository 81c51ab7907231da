import { z } from 'zod';
import { idPattern, maxIdLength } from '../../domain/ids.ts';
import { ISO_4217_MINOR_UNITS } from '../../domain/iso-4217.ts';
import { FEE_BASES } from '../../domain/learned-fees.ts';
import { AMOUNT_BANDS } from '../../domain/outcomes.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import { OPTIMIZE_GOALS } from '../../domain/strategies.ts';

/** The response parts of learning routing (docs/orchestration.md#reading-a-decision): decisions and outcomes. */

const connection = () => z.string().max(67);
const paymentId = () => z.string().regex(idPattern('pay')).max(maxIdLength('pay'));

/** A count of sessions: 2,000 a second for 24 hours stays far below 2^31 (clients map it to int32). */
const count = () =>
  z
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .meta({ format: 'int32' });

/** Every segment there can be: each currency, with each payment method or none, in each amount band. */
const MAX_SEGMENTS =
  Object.keys(ISO_4217_MINOR_UNITS).length * (PAYMENT_METHODS.length + 1) * AMOUNT_BANDS.length;

export const SegmentSchema = z
  .strictObject({
    currency: z.string().max(3),
    payment_method: z
      .enum([...PAYMENT_METHODS, 'any'])
      .meta({ description: "The link's payment method when it names exactly one; else `any`." }),
    amount_band: z.enum(AMOUNT_BANDS).meta({ description: 'The amount in major units of the currency.' }),
  })
  .meta({ id: 'RoutingSegment', title: 'Segment of a routing decision' });

export const RoutingDecisionSchema = z
  .strictObject({
    rule: z.string().max(100).nullable().meta({
      description:
        "The matching rule's name; null for the link's own `connections`, the default list or no routing.",
    }),
    strategy: z.enum(['link', 'default', 'enabled', 'priority', 'split', ...OPTIMIZE_GOALS]),
    segment: SegmentSchema,
    candidates: z
      .array(
        z.strictObject({
          connection: connection(),
          paid_share: z.number().min(0).max(1).nullable().meta({
            description: 'Share of its decided sessions in the segment that were paid; null with none.',
          }),
          sessions: count().meta({ description: 'Decided sessions (paid, failed, left) behind it.' }),
          expected_fee: z.number().nullable().meta({
            description:
              'The fee of this payment at that connection, in major units: learned from the fees its PSP reported in the segment, or from its fee lines (`fee_basis`); null when neither applies.',
          }),
          fee_basis: z.enum(FEE_BASES).nullable().meta({
            description:
              "`reported`: learned from the fees the PSP reported for the last 24 hours of payments in the segment (at least 20 of them); `configured`: from the connection's fee lines. Null with `expected_fee` (docs/orchestration.md#fees).",
          }),
          eliminated: z.boolean().meta({
            description:
              "Left out for a paid share below half the best candidate's over at least 50 sessions.",
          }),
        }),
      )
      .max(20),
    chosen: connection().nullable(),
    exploration: z.boolean().meta({ description: 'The connection was drawn at random to keep learning.' }),
    recovery: z
      .boolean()
      .meta({ description: "Opened at the next connection after the buyer's failed attempt." }),
    holdout: z.boolean().meta({
      description:
        "Drawn into the `optimize` rule's holdout: routed by its baseline, not by learning (docs/orchestration.md#holdout).",
    }),
    tried: z
      .array(
        z.strictObject({
          connection_id: connection(),
          payment_id: paymentId(),
          outcome: z.enum(['unavailable', 'refused']).meta({
            description:
              '`unavailable`: the PSP failed (no answer, an error); `refused`: it refused this link (an amount or currency it does not take).',
          }),
        }),
      )
      .max(20)
      .optional()
      .meta({
        description:
          'A failover attempt: the attempts of the same opening before it, in order, each a failed payment at a connection that opened no session. Absent on the first attempt.',
      }),
    recovers: paymentId().optional().meta({
      description:
        'A recovery (`recovery: true`): the payment that ended unpaid and that this attempt recovers. Absent otherwise.',
    }),
  })
  .meta({ id: 'RoutingDecision', title: 'Why a payment went to its connection' });

export const OutcomeCountsSchema = z
  .strictObject({
    opened: count(),
    paid: count(),
    failed: count().meta({ description: 'Declined by the PSP.' }),
    left: count().meta({ description: 'Expired or canceled after opening.' }),
    outage: count().meta({
      description:
        'Failed because the PSP did (a failure of class `outage`): counted apart from declines, not in `paid_share`.',
    }),
    paid_share: z.number().min(0).max(1).nullable(),
  })
  .meta({ id: 'OutcomeCounts', title: 'Session outcomes over a window' });

const windows = () => z.strictObject({ last_hour: OutcomeCountsSchema, last_24h: OutcomeCountsSchema });

export const PerformanceSummarySchema = windows().meta({
  id: 'PerformanceSummary',
  title: "A connection's session outcomes, all segments",
});

const ReportedFeesSchema = z
  .strictObject({
    count: count().meta({
      description: 'Fees its PSP reported for paid sessions in the segment, last 24 hours.',
    }),
    fee_share: z.number().min(0).nullable().meta({
      description: 'Their share of the amounts they were on; null with none.',
    }),
    used: z.boolean().meta({
      description:
        'At least 20 were reported: cost and value routing price the segment with them rather than the fee lines (docs/orchestration.md#fees).',
    }),
  })
  .meta({ id: 'ReportedFees', title: 'Fees a PSP reported in a segment' });

export const ConnectionPerformanceSchema = z
  .strictObject({
    object: z.literal('connection_performance'),
    connection_id: connection(),
    segments: z
      .array(
        z.strictObject({ segment: SegmentSchema, ...windows().shape, reported_fees: ReportedFeesSchema }),
      )
      .max(MAX_SEGMENTS),
  })
  .meta({ id: 'ConnectionPerformance', title: "A connection's session outcomes by segment" });

export const FeeLineSchema = z
  .strictObject({
    percent: z.number().min(0).max(100),
    fixed: z.number().min(0),
    currency: z.string().max(3).optional(),
    method: z.enum(PAYMENT_METHODS).optional(),
  })
  .meta({ id: 'FeeLine', title: 'One line of fees (the most specific matching line applies)' });
