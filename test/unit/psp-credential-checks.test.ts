import { describe, expect, it } from 'vitest';
import { checkCredentials } from '../../functions/adapters/psp/kit/credentials.ts';
import { descriptorOf } from '../../functions/adapters/psp/registry.ts';

/** What the descriptor of `provider` says is wrong with credentials for a connection of `mode`, or undefined. */
const problemOf = (provider: string, credentials: unknown, mode: 'test' | 'live') => {
  const descriptor = descriptorOf(provider);
  if (!descriptor) throw new Error(`no descriptor for ${provider}`);
  const checked = checkCredentials(descriptor, credentials, mode);
  return checked.ok ? undefined : checked.problem;
};

/**
 * Credentials of each PSP not yet in a folder of its own, in each mode, as an operator would pass them to
 * `npm run psp -- add` (a PSP in its folder tests its own: functions/adapters/psp/<folder>/test/).
 */
const credentials = {
  checkout_com: {
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
  for (const provider of ['checkout_com'] as const) {
    it(`accept ${provider} credentials of the connection's mode and refuse those of the other mode`, () => {
      expect(problemOf(provider, credentials[provider].test, 'test')).toBeUndefined();
      expect(problemOf(provider, credentials[provider].live, 'live')).toBeUndefined();
      expect(problemOf(provider, credentials[provider].test, 'live')).toMatch(/live/);
      expect(problemOf(provider, credentials[provider].live, 'test')).toMatch(/test/);
      expect(problemOf(provider, {}, 'test')).toBeDefined();
    });
  }
});
