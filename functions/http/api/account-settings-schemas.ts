import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../domain/personal-data.ts';
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
  }),
);
