import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Cashfree's official SDK (`cashfree-pg`) as a function's baseline holds it (test/bench/baseline-sdks.ts): a client
 * used as a user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'cashfree',
  package: 'cashfree-pg',
  binds: { named: ['Cashfree', 'CFEnvironment'] },
  call: "await new Cashfree(CFEnvironment.SANDBOX, event.secretId, event.secretId).PGFetchLink('link_1');",
};
