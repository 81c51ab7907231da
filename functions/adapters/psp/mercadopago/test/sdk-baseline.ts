import type { PspSdkBaseline } from '../../../../../test/bench/baseline-sdks.ts';

/**
 * Mercado Pago's official SDK as a function's baseline holds it (test/bench/baseline-sdks.ts): a client used as a
 * user without our code would use it, one call in the handler.
 */
export const sdkBaseline: PspSdkBaseline = {
  name: 'mercadopago',
  package: 'mercadopago',
  binds: { named: ['MercadoPagoConfig', 'Preference'] },
  call: "await new Preference(new MercadoPagoConfig({ accessToken: event.secretId })).get({ preferenceId: 'p1' });",
};
