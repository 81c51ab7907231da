import { describe, expect, it } from 'vitest';
import {
  accountSettingsFromItem,
  checkoutSettingsFromItem,
  pspConfigFromItem,
} from '../../functions/adapters/dynamodb/settings-mapper.ts';
import { refusal } from '../support/undecodable.ts';

const at = '2026-11-23T10:00:00.000Z';

describe('settings mappers', () => {
  const keys = { pk: 'ACCOUNT#acme', sk: 'CHECKOUT_SETTINGS#test' };

  it('read each (account, mode)’s settings', () => {
    const branding = {
      account: 'acme',
      mode: 'test',
      display_name: 'Acme',
      logo_url: null,
      accent_color: '#1f5fd6',
      support_email: null,
      updated_at: at,
    };
    expect(checkoutSettingsFromItem({ ...keys, ...branding })).toEqual(branding);
    const retention = { account: 'acme', mode: 'live', personal_data_retention_days: 90, updated_at: null };
    // An item written before time zones and subscriptions existed reads as UTC, the zone every older date was
    // cut in, with the default retries of a renewal (docs/subscriptions.md).
    const older = {
      time_zone: 'UTC',
      subscription_retry_days: [1, 3, 5, 7],
      subscription_after_retries: 'cancel',
    };
    expect(accountSettingsFromItem({ ...keys, ...retention })).toEqual({ ...retention, ...older });
    const chosen = {
      time_zone: 'Europe/Paris',
      subscription_retry_days: [2],
      subscription_after_retries: 'leave_past_due',
    };
    expect(accountSettingsFromItem({ ...keys, ...retention, ...chosen })).toEqual({
      ...retention,
      ...chosen,
    });
    const legacy = { account: 'acme', mode: 'live', provider: 'acme', updated_at: at };
    expect(pspConfigFromItem({ ...keys, ...legacy })).toEqual(legacy);
  });

  it('refuse settings of another shape', () => {
    const retention = { account: 'acme', mode: 'live', personal_data_retention_days: '90', updated_at: null };
    expect(refusal(() => accountSettingsFromItem({ ...keys, ...retention })).reason).toBe(
      'personal_data_retention_days: expected a number, found a string',
    );
    expect(refusal(() => checkoutSettingsFromItem({ ...keys, account: 'acme', mode: 'prod' })).reason).toBe(
      'mode: expected one of test, live, found a string',
    );
  });
});
