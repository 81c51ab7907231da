import { z } from 'zod';
import { OPTIMIZE_GOALS } from '../../domain/strategies.ts';
import { UPLIFT_WINDOWS } from '../../domain/uplift.ts';

/** `GET /v1/routing/uplift` (docs/orchestration.md#uplift): what learning earned against its holdout. */

/** A count of checkouts over at most 30 days: far below 2^53, but past int32 for a merchant above 800 a second. */
const count = () => z.int().min(0).meta({ format: 'int64' });

const interval = (unit: string) =>
  z.strictObject({
    estimate: z.number().meta({ description: `The estimate, in ${unit}.` }),
    low: z.number().meta({ description: 'The low end of its 95% interval.' }),
    high: z.number().meta({ description: 'The high end of its 95% interval.' }),
  });

const decimal = () => z.string().max(40);

const AmountIntervalSchema = z
  .strictObject({
    currency: z.string().max(3),
    estimate: decimal(),
    low: decimal(),
    high: decimal(),
  })
  .meta({ id: 'AmountInterval', title: 'An amount with its 95% interval (decimal strings)' });

const ArmSchema = z
  .strictObject({
    checkouts: count().meta({
      description: 'Sessions the rule opened in this arm (automatic recoveries aside).',
    }),
    decided: count().meta({ description: 'Of them, those whose outcome is known: paid, failed or left.' }),
    paid: count(),
    paid_share: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .meta({ description: 'paid / decided; null with none decided.' }),
  })
  .meta({ id: 'UpliftArm', title: 'One arm of an optimize rule' });

const figures = {
  learning: ArmSchema.meta({ description: 'The checkouts routed by learning.' }),
  holdout: ArmSchema.meta({
    description: "The checkouts drawn into the holdout, routed by the rule's baseline.",
  }),
  difference_points: interval('percentage points')
    .extend({
      excludes_zero: z.boolean().meta({
        description: 'The interval lies wholly above or below zero: the difference is unlikely to be chance.',
      }),
    })
    .nullable()
    .meta({
      description:
        "Learning's paid share less the holdout's, in percentage points, with Newcombe's 95% interval; null while an arm has no decided checkout.",
    }),
  extra_payments: interval('payments').nullable().meta({
    description:
      "The payments learning added to its own checkouts: the difference times learning's decided checkouts.",
  }),
  extra_amount: z.array(AmountIntervalSchema).max(200).meta({
    description: "The same in money, per currency, at the learning arm's mean paid amount.",
  }),
};

const NetUpliftSchema = z
  .strictObject({
    currency: z.string().max(3),
    learning_per_checkout: decimal().meta({
      description: 'Amount less fee per decided checkout (unpaid: 0).',
    }),
    holdout_per_checkout: decimal(),
    difference_per_checkout: AmountIntervalSchema.extend({ excludes_zero: z.boolean() }),
    extra: AmountIntervalSchema.meta({ description: "The difference times learning's decided checkouts." }),
  })
  .meta({ id: 'NetUplift', title: 'The uplift net of fees in one currency' });

export const RoutingUpliftSchema = z
  .strictObject({
    object: z.literal('routing_uplift'),
    method: z.literal('newcombe_wilson_95').meta({
      description:
        "How the intervals are computed: Newcombe's hybrid score interval (Wilson per arm) for a difference of paid shares, at 95%; rules together by the same rule (MOVER), each weighted by its learning arm's decided checkouts; net of fees by the normal interval of a difference of means.",
    }),
    window: z.enum(Object.keys(UPLIFT_WINDOWS) as ['7d', '30d']),
    since: z.string().max(10).meta({ description: 'The first day (UTC) counted; the last is today.' }),
    overall: z.strictObject(figures).meta({ description: 'Every rule together.' }),
    rules: z
      .array(
        z.strictObject({
          rule: z.string().max(100),
          goal: z.enum(OPTIMIZE_GOALS),
          ...figures,
          net: z.array(NetUpliftSchema).max(200).nullable().meta({
            description: 'For a rule that optimizes `cost` or `value`: the uplift net of fees, per currency.',
          }),
        }),
      )
      .max(200)
      .meta({ description: 'Each rule (by name and goal) with checkouts in the window, busiest first.' }),
  })
  .meta({ id: 'RoutingUplift', title: 'What routing that learns earned against its holdout' });
