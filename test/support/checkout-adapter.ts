import { afterAll, beforeAll } from 'vitest';
import { CheckoutPspFactory } from '../../functions/adapters/psp/checkout-psp.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import { type FakeCheckout, startFakeCheckout } from './fake-checkout.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { storedConnection } from './psp-fixtures.ts';

/** A sandbox connection's credentials as `npm run psp -- add --provider checkout` stores them. */
export const FAKE_CHECKOUT_CREDENTIALS = {
  secret_key: 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e',
  processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
  signature_key: 'whsk_fake-checkout-signature-key',
};

/**
 * The Checkout.com adapter of one test file, through `checkout-sdk-node`, against its fake (with one stored
 * test-mode connection): started before the file's tests, stopped after them. `fake` and `psp` are filled in
 * when the file starts.
 */
export function useCheckoutAdapter(tag: string) {
  const connection = storedConnection('checkout', 'test', `pc_checkout${tag}`.padEnd(28, '0'));
  const started = {} as { fake: FakeCheckout; psp: Psp };
  let untrust = () => {};
  beforeAll(async () => {
    untrust = trustFakePspCertificate();
    started.fake = await startFakeCheckout({
      secretKeys: [FAKE_CHECKOUT_CREDENTIALS.secret_key],
      processingChannelId: FAKE_CHECKOUT_CREDENTIALS.processing_channel_id,
      signatureKey: FAKE_CHECKOUT_CREDENTIALS.signature_key,
    });
    const secrets = new Map([[connection.secret_name as string, JSON.stringify(FAKE_CHECKOUT_CREDENTIALS)]]);
    const factory = new CheckoutPspFactory({
      secrets: { get: async (name: string) => secrets.get(name) },
      apiUrl: started.fake.url,
    });
    started.psp = await factory.create(connection);
  });
  afterAll(async () => {
    await started.fake?.stop();
    untrust();
  });
  return { connection, started };
}
