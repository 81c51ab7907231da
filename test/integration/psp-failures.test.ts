import { MollieApiError, type MollieClient } from '@mollie/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AdyenPsp,
  createFactory as createAdyenFactory,
} from '../../functions/adapters/psp/adyen-psp.ts';
import { createFactory as createMollieFactory, MolliePsp } from '../../functions/adapters/psp/mollie-psp.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import { type Psp, type PspFailureKind, pspFailureOf } from '../../functions/ports/psp.ts';
import type { Refunds } from '../../functions/ports/psp-capabilities.ts';
import { timeoutFor } from '../support/eventually.ts';
import { type FakeAdyen, startFakeAdyen } from '../support/fake-adyen.ts';
import { type FakeMollie, startFakeMollie } from '../support/fake-mollie.ts';
import { trustFakePspCertificate } from '../support/fake-psp-server.ts';
import { factoryOf } from '../support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../support/psp-fixtures.ts';

/** The kind of PSP failure a call ended with; `none` when it succeeded, `not a PSP failure` for anything else. */
async function failureOf(call: Promise<unknown>): Promise<PspFailureKind | 'none' | 'not a PSP failure'> {
  try {
    await call;
    return 'none';
  } catch (error) {
    return pspFailureOf(error)?.kind ?? 'not a PSP failure';
  }
}

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

describe('the Mollie adapter translates what Mollie answers into the closed set of PSP failures', () => {
  const key = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
  const connection = storedConnection('mollie', 'test', 'pc_molliefailures000000000000');
  const secrets = new Map([[connection.secret_name as string, JSON.stringify({ api_key: key })]]);
  let mollie: FakeMollie;
  let factory: ReturnType<typeof factoryOf<MolliePsp>>;

  beforeAll(async () => {
    mollie = await startFakeMollie({ apiKeys: [key] });
    factory = factoryOf<MolliePsp>(createMollieFactory, { secrets, apiUrl: mollie.apiEndpoint });
  });
  afterAll(() => mollie.stop());

  it('its 422 to a payment or a refund is a refusal', async () => {
    const psp = await factory.create(connection);
    // Mollie takes two decimals of KWD, not three.
    expect(await failureOf(session(psp, '10.005', 'KWD'))).toBe('refused');
    const open = await session(psp);
    expect(await failureOf(refund(psp, open.id))).toBe('refused');
  });

  it('a key it refuses (401, 403) is refused credentials, and its 429 is Mollie failing, whatever the call', async () => {
    // Mollie's document has no 401 or 403 for these calls, so the fake cannot answer them: its SDK's error, as
    // @mollie/api-client throws it for such an answer, stands in.
    for (const [statusCode, kind] of [
      [401, 'credentials_rejected'],
      [403, 'credentials_rejected'],
      [429, 'unavailable'],
    ] as const) {
      const answer = () => Promise.reject(new MollieApiError('Missing authentication', { statusCode }));
      const client = { payments: { create: answer, get: answer }, paymentRefunds: { create: answer } };
      const psp = new MolliePsp(client as unknown as MollieClient, connection);
      expect(await failureOf(session(psp))).toBe(kind);
      expect(await failureOf(refund(psp, 'tr_1'))).toBe(kind);
      expect(await failureOf(psp.retrieveSession('tr_1'))).toBe(kind);
    }
  });

  it('its 503 is Mollie failing', { timeout: timeoutFor(PSP_CALL_TIMEOUT_MS) }, async () => {
    const psp = await factory.create(connection);
    mollie.outage = 'error';
    try {
      expect(await failureOf(psp.retrieveSession('tr_1'))).toBe('unavailable');
    } finally {
      mollie.outage = 'none';
    }
  });
});

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
    factory = factoryOf<AdyenPsp>(createAdyenFactory, { secrets, apiUrl: adyen.url });
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
