import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/personal-data.ts';
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
  }),
);
