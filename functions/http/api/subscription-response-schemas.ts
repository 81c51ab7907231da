import { z } from 'zod';
import { MODES } from '../../domain/principal.ts';
import { CANCELLATION_REASONS, SUBSCRIPTION_STATUSES } from '../../domain/subscription.ts';
import { int32 } from './int32-schema.ts';
import { MAX_METADATA_KEY_LENGTH, MAX_METADATA_KEYS, MAX_METADATA_VALUE_LENGTH } from './metadata-limits.ts';
import { money } from './money-response-schemas.ts';
import { DeclineSchema, RecurringSchema } from './recurring-response-schemas.ts';
import {
  nullableTimestamp,
  PaymentLinkId,
  pageOf,
  providerSchema,
  publicId,
  timestamp,
  url,
} from './response-schemas.ts';
import { MAX_DESCRIPTION_LENGTH } from './schemas.ts';

/** The subscription resource (docs/api.md#subscriptions), as the API returns it and every event carries it. */
export const SubscriptionId = publicId('sub');

export const SubscriptionSchema = z
  .strictObject({
    id: SubscriptionId.meta({ example: 'sub_3kQm8Zr2WcT1bXy7LrN3sF4a' }),
    object: z.literal('subscription'),
    mode: z.enum(MODES),
    status: z.enum(SUBSCRIPTION_STATUSES).meta({
      description:
        '`trialing` until the first charge, `active` while paid, `past_due` while a period is being collected, then `canceled` (by the merchant, the buyer, or retries that ran out) or `ended` (its `cycles` done). The last two are final.',
    }),
    link_id: PaymentLinkId.meta({ description: 'The subscription link it came from.' }),
    first_payment_id: publicId('pay').meta({ description: "The link's payment that started it." }),
    client_reference_id: z.string().max(200).nullable().meta({
      description: "The buyer's `client_reference_id` from the checkout URL: buyer-supplied, unverified.",
    }),
    description: z.string().max(MAX_DESCRIPTION_LENGTH).nullable(),
    metadata: z
      .record(z.string().min(1).max(MAX_METADATA_KEY_LENGTH), z.string().max(MAX_METADATA_VALUE_LENGTH))
      .meta({ maxProperties: MAX_METADATA_KEYS })
      .nullable(),
    amount: money('What each period from the next one on charges.', '9.99'),
    recurring: RecurringSchema,
    current_period: int32(0).meta({
      description: 'The period it is in: 0 is the trial, 1 the first paid one.',
    }),
    current_period_start: timestamp('When the current period started.'),
    current_period_end: timestamp('When it ends: the next period is charged then.'),
    periods_paid: int32(0),
    next_charge_at: nullableTimestamp(
      'When the mandate is charged next (a renewal or a retry); null when no charge is coming (canceled, ended, canceled at the period end, the last cycle paid, or waiting for the buyer at `update_url`).',
    ),
    cancel_at_period_end: z.boolean(),
    canceled_at: nullableTimestamp('When it was canceled (at the period end: that end).'),
    cancellation_reason: z.enum(CANCELLATION_REASONS).nullable().meta({
      description:
        '`requested` (the API), `buyer` (a cancel link), `payment_failed` (retries ran out); also set while a cancel at the period end waits.',
    }),
    ended_at: nullableTimestamp('When its last cycle ended.'),
    mandate: z
      .strictObject({
        connection_id: publicId('pc'),
        provider: providerSchema(),
        reference: z
          .string()
          .max(255)
          .meta({ description: "The PSP's id of the mandate (never card data)." }),
        method: z.string().max(50),
        display: z.string().max(100).nullable(),
      })
      .meta({ description: 'The mandate it charges, at the connection it is pinned to.' }),
    latest_failure: DeclineSchema.extend({
      message: z.string().max(500),
      at: timestamp('When the PSP declined.'),
      period: int32(1),
      attempt: int32(1),
    })
      .nullable()
      .meta({ description: 'The latest declined charge, kept after a recovery; null until one.' }),
    update_url: url().nullable().meta({
      description:
        'While `past_due` and the mandate cannot be charged again (a hard decline, authentication asked, or retries over on an account that leaves subscriptions past due): where the buyer pays the period and sets up a new mandate. Null otherwise.',
    }),
    created_at: timestamp('When it started.'),
    updated_at: timestamp('When it last changed.'),
  })
  .meta({ id: 'Subscription', title: 'Subscription' });

export const SubscriptionListSchema = pageOf(SubscriptionSchema, {
  id: 'SubscriptionList',
  title: 'A page of subscriptions',
});

export const CancelLinkSchema = z
  .strictObject({
    object: z.literal('subscription_cancel_link'),
    subscription_id: SubscriptionId,
    url: url().meta({ description: 'Our page where the buyer cancels, once, without signing in.' }),
    expires_at: timestamp('When it stops working.'),
  })
  .meta({ id: 'SubscriptionCancelLink', title: "A buyer's cancel link" });
