import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Checkout.com's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'checkout',
  package: 'checkout-sdk-node',
  binds: { default: 'Checkout' },
  call: "await new Checkout(event.secretId, { useLegacyDomain: true }).paymentLinks.get('pl_1');",
};
