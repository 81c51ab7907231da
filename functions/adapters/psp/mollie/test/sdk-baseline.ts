import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Mollie's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'mollie',
  package: '@mollie/api-client',
  binds: { default: 'createMollieClient' },
  call: "await createMollieClient({ apiKey: event.secretId }).payments.get('tr_1');",
};
