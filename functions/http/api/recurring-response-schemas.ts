import { z } from 'zod';
import { DECLINE_CLASSES } from '../../domain/mandates.ts';
import { INTERVALS, MAX_CYCLES, MAX_TRIAL_DAYS } from '../../domain/subscription-schedule.ts';
import { int32 } from './int32-schema.ts';

/**
 * The terms of a subscription link, as the link and its subscriptions show them (docs/subscriptions.md): in a file
 * of its own so that response-schemas.ts (the link) and subscription-response-schemas.ts both take it.
 */
export const RecurringSchema = z
  .strictObject({
    interval: z.enum(INTERVALS),
    interval_count: int32(1, 365).meta({ description: 'Intervals per period: 3 with `month` is quarterly.' }),
    trial_days: int32(1, MAX_TRIAL_DAYS)
      .nullable()
      .meta({ description: 'Days of free trial before the first charge; null: none.' }),
    cycles: int32(1, MAX_CYCLES)
      .nullable()
      .meta({ description: 'Periods charged in all, then the subscription ends; null: until canceled.' }),
  })
  .meta({ id: 'Recurring', title: 'Subscription terms' });

/** Why a renewal was declined: its class (which decides the retries) and the PSP's own code. */
export const DeclineSchema = z.strictObject({
  class: z.enum(DECLINE_CLASSES).meta({
    description:
      "`soft`: retried on the account's retry days; `hard` (lost or stolen card, closed account, revoked mandate, a charge the PSP refuses as a request) and `authentication_required`: never retried, the buyer is sent the `update_url`.",
  }),
  code: z.string().max(100).meta({
    description:
      "The PSP's own code, prefixed with the provider; or one of ours, unprefixed: `charge_refused` (the PSP refused the charge as a request, e.g. an amount under its minimum), `connection_removed` (the mandate's connection was removed).",
    example: 'sandbox:insufficient_funds',
  }),
});
