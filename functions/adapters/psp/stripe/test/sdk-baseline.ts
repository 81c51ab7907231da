import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Stripe's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'stripe',
  package: 'stripe',
  binds: { default: 'Stripe' },
  call: "await new Stripe(event.secretId).checkout.sessions.expire('cs_1');",
};
