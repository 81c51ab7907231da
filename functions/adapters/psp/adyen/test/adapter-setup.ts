import { afterAll, beforeAll } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import type { Mode } from '../../../../domain/principal.ts';
import type { Psp } from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { AdyenPsp } from '../adapter.ts';
import { type FakeAdyen, startFakeAdyen } from './fake.ts';

// What the Adyen adapter's tests share (adapter.test.ts, refunds.test.ts): credentials of both environments, a
// connection of each mode, and a fake Adyen with the factory over them.

export const merchantAccount = 'AcmeECOM';
export const hmacKey = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
export const rotatedHmacKey = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90';
export const credentials = {
  api_key:
    'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-test',
  merchant_account: merchantAccount,
  hmac_key: hmacKey,
  environment: 'test',
};
export const liveCredentials = {
  ...credentials,
  api_key:
    'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-live',
  environment: 'live',
  live_endpoint_url_prefix: '1797a841fbb37ca7-AdyenDemo',
};

export const connectionOf = (mode: Mode, id = `pc_adyen${mode}0000000000000000000`) =>
  storedConnection('adyen', mode, id);
export const testConnection = connectionOf('test');
export const liveConnection = connectionOf('live');

/**
 * A fake Adyen and the adapters' factory over `secrets` (the credentials of both connections stored), started
 * before the file's tests and stopped after them; read its fields inside the tests.
 */
export function useFakeAdyen() {
  const secrets = new Map<string, string>();
  const started = {} as {
    adyen: FakeAdyen;
    factory: ReturnType<typeof factoryOf<AdyenPsp>>;
    secrets: typeof secrets;
  };
  let untrust: () => void;
  beforeAll(async () => {
    untrust = trustFakePspCertificate();
    const adyen = await startFakeAdyen({
      apiKeys: [credentials.api_key, liveCredentials.api_key],
      merchantAccount,
    });
    secrets.set(testConnection.secret_name as string, JSON.stringify(credentials));
    secrets.set(liveConnection.secret_name as string, JSON.stringify(liveCredentials));
    Object.assign(started, {
      adyen,
      factory: factoryOf<AdyenPsp>(PSP_FACTORIES.adyen, { secrets, apiUrl: adyen.url }),
      secrets,
    });
  });
  afterAll(async () => {
    await started.adyen?.stop();
    untrust();
  });
  return started;
}

/** A payment link of `value` paid at the fake Adyen, and its AUTHORISATION verified by `psp`. */
export async function paidAt(adyen: FakeAdyen, psp: Psp, value = '10.00') {
  const paymentLink = orderLink(value);
  const session = await psp.createSession(sessionRequest(paymentLink, testConnection));
  const item = adyen.pay(session.id);
  const notifications = await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
  return { paymentLink, session, item, notifications };
}
