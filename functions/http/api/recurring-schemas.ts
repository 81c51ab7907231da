import { hasAdjustableLines, type LineItem } from '../../domain/amount.ts';
import {
  INTERVALS,
  MAX_CYCLES,
  MAX_INTERVAL_COUNT,
  MAX_TRIAL_DAYS,
} from '../../domain/subscription-schedule.ts';
import * as z from '../../zod.ts';

/**
 * `recurring` of a new payment link (docs/subscriptions.md): in a file of its own, which schemas.ts takes, so that
 * only the functions that create links carry it.
 */
export const recurringSchema = () =>
  z.optional(
    z
      .strictObject({
        interval: z.enum(INTERVALS),
        interval_count: z._default(
          z.int().check(z.minimum(1), z.maximum(365), z.meta({ format: 'int32' })),
          1,
        ),
        trial_days: z.nullish(
          z.int().check(
            z.minimum(1),
            z.maximum(MAX_TRIAL_DAYS),
            z.meta({
              description: `Days of free trial, 1 to ${MAX_TRIAL_DAYS}: the buyer sets up the mandate and is first charged when it ends.`,
              format: 'int32',
            }),
          ),
        ),
        cycles: z.nullish(
          z.int().check(
            z.minimum(1),
            z.maximum(MAX_CYCLES),
            z.meta({
              description: `Periods charged in all, the first included, 1 to ${MAX_CYCLES}; absent: until canceled.`,
              format: 'int32',
            }),
          ),
        ),
      })
      .check(
        (ctx) => {
          const most = MAX_INTERVAL_COUNT[ctx.value.interval];
          if (ctx.value.interval_count > most) {
            ctx.issues.push({
              code: 'custom',
              message: `At most ${most} with \`${ctx.value.interval}\`: a period is at most a year.`,
              input: ctx.value.interval_count,
              path: ['interval_count'],
            });
          }
        },
        z.meta({
          description:
            'Makes a subscription link: its payment opens a mandate at the PSP and starts a subscription that charges it every `interval_count` `interval`s (docs/subscriptions.md). With `amount` or `line_items`, not `amount_range`; routed only to connections that hold mandates.',
        }),
      ),
  );

/**
 * A subscription charges the same amount every period without the buyer: not one they choose (a range, or
 * quantities they pick), which no later period could know.
 */
export function recurringLinkProblems(
  ctx: z.core.ParsePayload<{
    recurring?: unknown;
    amount_range?: unknown;
    line_items?: readonly LineItem[] | undefined;
  }>,
): void {
  if (ctx.value.recurring === undefined) return;
  if (ctx.value.amount_range !== undefined) {
    ctx.issues.push({
      code: 'custom',
      message:
        'A subscription link charges a fixed amount or its line items, not an amount the buyer chooses.',
      input: ctx.value.amount_range,
      path: ['amount_range'],
    });
  }
  if (hasAdjustableLines({ line_items: ctx.value.line_items })) {
    ctx.issues.push({
      code: 'custom',
      message: 'A subscription link charges its line items as set: no quantity the buyer picks.',
      input: ctx.value.line_items,
      path: ['line_items'],
    });
  }
}
