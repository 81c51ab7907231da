import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../functions/domain/connection.ts';
import { pspFactoriesForChecks } from '../../lib/psp-credential-checks.ts';

const factories = pspFactoriesForChecks();
const factory = (provider: string) => {
  const found = factories.find((candidate) => candidate.provider === provider);
  if (!found) throw new Error(`no factory for ${provider}`);
  return found;
};

/** Credentials of each real PSP in each mode, as an operator would pass them to `npm run psp -- add`. */
const credentials = {
  stripe: {
    test: { secret_key: 'sk_test_abc123', webhook_secret: 'whsec_abc' },
    live: { secret_key: 'rk_live_abc123', webhook_secret: 'whsec_abc' },
  },
  mollie: {
    test: { api_key: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' },
    live: { api_key: 'live_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM' },
  },
  adyen: {
    test: {
      api_key: 'AQE-key',
      merchant_account: 'AcmeECOM',
      hmac_key: 'AB'.repeat(32),
      environment: 'test',
    },
    live: {
      api_key: 'AQE-key',
      merchant_account: 'AcmeECOM',
      hmac_key: 'AB'.repeat(32),
      environment: 'live',
      live_endpoint_url_prefix: '1797a841fbb37ca7-AcmeCompany',
    },
  },
  paypal: {
    test: {
      client_id: 'AeA1QIZXiflr1_-r0U2UbWTziOWX1GRQer5OEUCtvB4',
      client_secret: 'ECYYrrSHdKfk_Q0EdvzdGkzj58a66kKaUQ5dZAEv4',
      webhook_id: '8PT597110X687430LKGECATA',
      environment: 'sandbox',
    },
    live: {
      client_id: 'AeA1QIZXiflr1_-r0U2UbWTziOWX1GRQer5OEUCtvB4',
      client_secret: 'ECYYrrSHdKfk_Q0EdvzdGkzj58a66kKaUQ5dZAEv4',
      webhook_id: '8PT597110X687430LKGECATA',
      environment: 'live',
    },
  },
  checkout: {
    test: {
      secret_key: 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e',
      processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
      signature_key: 'signature-key',
    },
    live: {
      secret_key: 'sk_m73dzbpy7cf3gfd46xr4yj5xo4e',
      processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
      signature_key: 'signature-key',
    },
  },
} as const;

describe('credential checks of npm run psp -- add', () => {
  it('exist for every provider', () => {
    expect(factories.map((candidate) => candidate.provider).sort()).toEqual([...PROVIDERS].sort());
  });

  for (const provider of ['stripe', 'mollie', 'adyen', 'paypal', 'checkout'] as const) {
    it(`accept ${provider} credentials of the connection's mode and refuse those of the other mode`, () => {
      expect(() => factory(provider).checkCredentials(credentials[provider].test, 'test')).not.toThrow();
      expect(() => factory(provider).checkCredentials(credentials[provider].live, 'live')).not.toThrow();
      expect(() => factory(provider).checkCredentials(credentials[provider].test, 'live')).toThrow(/live/);
      expect(() => factory(provider).checkCredentials(credentials[provider].live, 'test')).toThrow(/test/);
      expect(() => factory(provider).checkCredentials({}, 'test')).toThrow();
    });
  }

  it('take a PayPal connection without an environment as of its mode’s environment', () => {
    const { environment: _, ...withoutEnvironment } = credentials.paypal.test;
    expect(() => factory('paypal').checkCredentials(withoutEnvironment, 'test')).not.toThrow();
    expect(() => factory('paypal').checkCredentials(withoutEnvironment, 'live')).not.toThrow();
    expect(() =>
      factory('paypal').checkCredentials({ ...withoutEnvironment, environment: 'production' }, 'live'),
    ).toThrow(/live environment/);
  });
});
