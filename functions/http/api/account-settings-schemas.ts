import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/personal-data.ts';
import {
  AFTER_RETRIES,
  DEFAULT_RETRY_DAYS,
  MAX_RETRIES,
  MAX_RETRY_DAY,
} from '../../domain/subscription-schedule.ts';
import { DEFAULT_TIME_ZONE, isTimeZone, MAX_TIME_ZONE_LENGTH } from '../../domain/time-zones.ts';
import { once } from '../../once.ts';
import * as z from '../../zod.ts';

/**
 * `PUT /v1/account-settings`: the key's (account, mode)'s settings that are not about its pages' look, replaced
 * whole (docs/api.md#account-settings).
 */
export const accountSettingsRequest = /* @__PURE__ */ once(() =>
  z.strictObject({
    personal_data_retention_days: z.int().check(
      z.minimum(MIN_RETENTION_DAYS),
      z.maximum(MAX_RETENTION_DAYS),
      z.meta({
        description: `Days after a payment's creation that its buyer's details are erased, ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS} (default 400).`,
        format: 'int32',
      }),
    ),
    time_zone: z.optional(
      z.string().check(
        z.maxLength(MAX_TIME_ZONE_LENGTH),
        z.refine(isTimeZone, 'Must be an IANA time zone name such as Europe/Amsterdam, or UTC.'),
        z.meta({
          description: `The IANA time zone (\`Europe/Amsterdam\`) in which a date of the books' filters is a day: \`created[gte]=2026-11-29\` is the start of that day there. One of \`Intl.supportedValuesOf('timeZone')\` (a name the platform takes for one of them reads back as that one), or ${DEFAULT_TIME_ZONE}; absent: ${DEFAULT_TIME_ZONE}.`,
        }),
      ),
    ),
    subscription_retry_days: z.optional(
      z.array(z.int().check(z.minimum(1), z.maximum(MAX_RETRY_DAY), z.meta({ format: 'int32' }))).check(
        z.maxLength(MAX_RETRIES),
        z.refine(
          (days) => days.every((day, index) => index === 0 || day > (days[index - 1] as number)),
          'Must be increasing: each retry after the one before.',
        ),
        z.meta({
          description: `Days after a subscription period's first declined charge that it is charged again after a soft decline, increasing, each 1 to ${MAX_RETRY_DAY}, at most ${MAX_RETRIES} (\`[]\`: never retried); absent: ${DEFAULT_RETRY_DAYS.join(', ')}. The last is also when the collection of a period ends after a hard decline or authentication asked (docs/subscriptions.md#retries).`,
        }),
      ),
    ),
    subscription_after_retries: z.optional(
      z.enum(AFTER_RETRIES).check(
        z.meta({
          description:
            'What a subscription whose period is still unpaid when its retries end becomes: `cancel` (default: canceled, `subscription.canceled`) or `leave_past_due` (nothing more is charged; the buyer may still pay through its update link).',
        }),
      ),
    ),
  }),
);
