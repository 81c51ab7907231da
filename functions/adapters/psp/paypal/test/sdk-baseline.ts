import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * PayPal's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'paypal',
  package: '@paypal/paypal-server-sdk',
  binds: { named: ['Client', 'Environment', 'OrdersController', 'PaymentsController', 'VaultController'] },
  call: "const client = new Client({ clientCredentialsAuthCredentials: { oAuthClientId: event.secretId, oAuthClientSecret: event.secretId }, environment: Environment.Sandbox }); new PaymentsController(client); new VaultController(client); await new OrdersController(client).getOrder({ id: 'O1' });",
};
