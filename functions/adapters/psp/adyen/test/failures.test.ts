import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import {
  failureOf,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import type { Psp } from '../../../../ports/psp.ts';
import type { Refunds } from '../../../../ports/psp-capabilities.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { AdyenPsp } from '../adapter.ts';
import { type FakeAdyen, startFakeAdyen } from './fake.ts';

const session = (psp: Psp, value = '5.00', currency = 'EUR') =>
  psp.createSession(
    sessionRequest(orderLink(value, currency), storedConnection(psp.provider, 'test', 'pc_x')),
  );
const refund = (psp: Refunds, paymentReference: string) =>
  psp.refund({
    refundId: 're_failures0000000000000000001',
    linkId: 'pl_failures0000000000000000001',
    paymentReference,
    amount: { value: '1.00', currency: 'EUR' },
  });

let untrust: () => void;
beforeAll(() => {
  untrust = trustFakePspCertificate();
});
afterAll(() => untrust());

describe('the Adyen adapter translates what Adyen answers into the closed set of PSP failures', () => {
  const credentials = {
    api_key:
      'AQEyhmfxKonIYxZGw0m/n3Q5qf3VaY9UCJ14XWZE03G/k2NFitRvbe4N1XqH1eHaH2AksaEQwV1bDb7kfNy1WIxIIkxgBw==-test',
    merchant_account: 'AcmeECOM',
    hmac_key: '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056',
    environment: 'test',
  };
  const connection = storedConnection('adyen', 'test', 'pc_adyenfailures0000000000000');
  const revoked = storedConnection('adyen', 'test', 'pc_adyenrevoked00000000000000');
  const foreign = storedConnection('adyen', 'test', 'pc_adyenforeign00000000000000');
  const secrets = new Map([
    [connection.secret_name as string, JSON.stringify(credentials)],
    [revoked.secret_name as string, JSON.stringify({ ...credentials, api_key: 'AQE-revoked-test' })],
    [foreign.secret_name as string, JSON.stringify({ ...credentials, merchant_account: 'OtherECOM' })],
  ]);
  let adyen: FakeAdyen;
  let factory: ReturnType<typeof factoryOf<AdyenPsp>>;

  beforeAll(async () => {
    adyen = await startFakeAdyen({
      apiKeys: [credentials.api_key],
      merchantAccount: credentials.merchant_account,
    });
    factory = factoryOf<AdyenPsp>(PSP_FACTORIES.adyen, { secrets, apiUrl: adyen.url });
  });
  afterAll(() => adyen.stop());

  it('its 422 to a refund is a refusal', async () => {
    const psp = await factory.create(connection);
    expect(await failureOf(refund(psp, 'UNKNOWNPSPREFERENCE'))).toBe('refused');
  });

  it('a key it does not know (401) or a merchant account the key may not use (403) is refused credentials', async () => {
    const unknownKey = await factory.create(revoked);
    expect(await failureOf(session(unknownKey))).toBe('credentials_rejected');
    expect(await failureOf(unknownKey.retrieveSession('PLFAILURES'))).toBe('credentials_rejected');
    const otherAccount = await factory.create(foreign);
    expect(await failureOf(session(otherAccount))).toBe('credentials_rejected');
  });

  it('its 500 is Adyen failing, to a payment link, a refund, an end and a lookup alike', async () => {
    const psp = await factory.create(connection);
    const open = await session(psp);
    adyen.outage = 'error';
    try {
      expect(await failureOf(session(psp))).toBe('unavailable');
      expect(await failureOf(refund(psp, 'PSPREFERENCE1'))).toBe('unavailable');
      expect(await failureOf(psp.expireSession(open))).toBe('unavailable');
      expect(await failureOf(psp.retrieveSession(open.id))).toBe('unavailable');
    } finally {
      adyen.outage = 'none';
    }
  });
});
