import { afterAll, beforeAll } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { adapterOf } from '../../../../../test/support/psp-fakes.ts';
import { storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import type { CheckoutPsp } from '../adapter.ts';
import { CHECKOUT_FAKE, type FakeCheckout, startFakeCheckout } from './fake.ts';

/** A sandbox connection's credentials as `npm run psp -- add --provider checkout_com` stores them. */
export const FAKE_CHECKOUT_CREDENTIALS = CHECKOUT_FAKE.credentials;

/**
 * The Checkout.com adapter of one test file, through `checkout-sdk-node`, against its fake (with one stored
 * test-mode connection): started before the file's tests, stopped after them. `fake` and `psp` are filled in
 * when the file starts.
 */
export function useCheckoutAdapter(tag: string) {
  const connection = storedConnection('checkout_com', 'test', `pc_checkout${tag}`.padEnd(28, '0'));
  const started = {} as { fake: FakeCheckout; psp: CheckoutPsp };
  let untrust = () => {};
  beforeAll(async () => {
    untrust = trustFakePspCertificate();
    started.fake = await startFakeCheckout({
      secretKeys: [FAKE_CHECKOUT_CREDENTIALS.secret_key],
      processingChannelId: FAKE_CHECKOUT_CREDENTIALS.processing_channel_id,
      signatureKey: FAKE_CHECKOUT_CREDENTIALS.signature_key,
    });
    started.psp = await adapterOf<CheckoutPsp>(connection, FAKE_CHECKOUT_CREDENTIALS, started.fake.url);
  });
  afterAll(async () => {
    await started.fake?.stop();
    untrust();
  });
  return { connection, started };
}
