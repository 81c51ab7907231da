import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Square's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'square',
  package: 'square',
  binds: { named: ['SquareClient'] },
  call: "await new SquareClient({ token: event.secretId }).orders.get({ orderId: 'o1' });",
};
