import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Adyen's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'adyen',
  package: '@adyen/api-library',
  binds: { named: ['Client', 'CheckoutAPI'] },
  call: "await new CheckoutAPI(new Client({ apiKey: event.secretId, environment: 'TEST' })).PaymentsApi.getResultOfPaymentSession('cs_1', 'r');",
};
