import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MollieApiError, type MollieClient } from '@mollie/api-client';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdyenPspFactory } from '../../functions/adapters/psp/adyen-psp.ts';
import { MolliePsp, MolliePspFactory } from '../../functions/adapters/psp/mollie-psp.ts';
import { StripePsp } from '../../functions/adapters/psp/stripe-psp.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import { type Psp, type PspFailureKind, pspFailureOf } from '../../functions/ports/psp.ts';
import { timeoutFor } from '../support/eventually.ts';
import { type FakeAdyen, startFakeAdyen } from '../support/fake-adyen.ts';
import { type FakeMollie, startFakeMollie } from '../support/fake-mollie.ts';
import { trustFakePspCertificate } from '../support/fake-psp-server.ts';
import { type FakeStripe, startFakeStripe } from '../support/fake-stripe.ts';
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
const refund = (psp: Psp, paymentReference: string) =>
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

describe('the Stripe adapter translates what Stripe answers into the closed set of PSP failures', () => {
  const credentials = { secret_key: 'sk_test_failures_1', webhook_secret: 'whsec_failures' };
  const connection = storedConnection('stripe', 'test', 'pc_stripefailures0000000000000');
  let stripe: FakeStripe;
  /** A Stripe that answers every request with `answer.status` (and says not to retry), or never. */
  let broken: Server;
  const answer = { status: 503, hang: false };

  beforeAll(async () => {
    stripe = await startFakeStripe({ secretKey: credentials.secret_key });
    broken = createServer((_request, response) => {
      if (answer.hang) return;
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'stripe-should-retry': 'false',
      });
      response.end(
        JSON.stringify({ error: { type: 'api_error', message: `Stripe answered ${answer.status}` } }),
      );
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    broken.closeAllConnections();
    await Promise.all([stripe.stop(), new Promise((resolve) => broken.close(resolve))]);
  });

  const brokenStripe = () =>
    new StripePsp(Stripe, credentials, connection, {
      host: '127.0.0.1',
      port: (broken.address() as AddressInfo).port,
      protocol: 'http',
    });

  it('its 400 to a session is a refusal; a key it does not know (401) is refused credentials', async () => {
    const psp = new StripePsp(Stripe, credentials, connection, stripe.endpoint);
    // Stripe refuses a session that would live longer than 24 hours.
    const tooLong = {
      ...sessionRequest(orderLink('5.00'), connection),
      expiresAt: new Date(Date.now() + 48 * 3_600_000),
    };
    expect(await failureOf(psp.createSession(tooLong))).toBe('refused');
    expect(stripe.requests.at(-1)?.path).toBe('/v1/checkout/sessions');
    const unknownKey = new StripePsp(
      Stripe,
      { ...credentials, secret_key: 'sk_test_revoked_1' },
      connection,
      stripe.endpoint,
    );
    expect(await failureOf(session(unknownKey))).toBe('credentials_rejected');
    expect(await failureOf(refund(unknownKey, 'pi_1'))).toBe('credentials_rejected');
    expect(await failureOf(unknownKey.retrieveSession('cs_test_1'))).toBe('credentials_rejected');
  });

  it('a refund of a PaymentIntent it does not know (404) is a refusal', async () => {
    const psp = new StripePsp(Stripe, credentials, connection, stripe.endpoint);
    expect(await failureOf(refund(psp, 'pi_unknown'))).toBe('refused');
  });

  it('its 5xx and 429 are Stripe failing, to a session, a refund and a lookup alike', async () => {
    const psp = brokenStripe();
    for (const status of [500, 503, 429]) {
      answer.status = status;
      expect(await failureOf(session(psp))).toBe('unavailable');
      expect(await failureOf(refund(psp, 'pi_1'))).toBe('unavailable');
      expect(await failureOf(psp.retrieveRefund('re_1'))).toBe('unavailable');
    }
  });

  it('no server to answer (a network error) is Stripe failing', async () => {
    const psp = new StripePsp(Stripe, credentials, connection, {
      host: '127.0.0.1',
      port: 9,
      protocol: 'http',
    });
    expect(await failureOf(session(psp))).toBe('unavailable');
  });

  it('no answer within the PSP call budget is Stripe failing', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    answer.hang = true;
    try {
      expect(await failureOf(session(brokenStripe()))).toBe('unavailable');
    } finally {
      answer.hang = false;
    }
  });
});

describe('the Mollie adapter translates what Mollie answers into the closed set of PSP failures', () => {
  const key = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
  const connection = storedConnection('mollie', 'test', 'pc_molliefailures000000000000');
  const secrets = new Map([[connection.secret_name as string, JSON.stringify({ api_key: key })]]);
  let mollie: FakeMollie;
  let factory: MolliePspFactory;

  beforeAll(async () => {
    mollie = await startFakeMollie({ apiKeys: [key] });
    factory = new MolliePspFactory({
      secrets: { get: async (name) => secrets.get(name) },
      apiEndpoint: mollie.apiEndpoint,
    });
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
  let factory: AdyenPspFactory;

  beforeAll(async () => {
    adyen = await startFakeAdyen({
      apiKeys: [credentials.api_key],
      merchantAccount: credentials.merchant_account,
    });
    factory = new AdyenPspFactory({ secrets: { get: async (name) => secrets.get(name) }, apiUrl: adyen.url });
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
