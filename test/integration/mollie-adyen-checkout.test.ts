// @module-tag waits: a hang waits out the 5 s PSP call budget (test/support/sequencer.ts)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { UNKNOWN_ID_LOOKUPS } from '../../functions/ports/rate-limiter.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { timeoutFor } from '../support/eventually.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

const adyen = ADYEN_FAKE.credentials;
let psps: PspStack<typeof FAKES>;
let mollie: FakeMollie;
let fakeAdyen: FakeAdyen;
let stack: TestStack;
const keys: Record<string, IssuedApiKey> = {};
const connections: Record<string, PspConnection> = {};

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, mollie, adyen: fakeAdyen } = psps);
  keys.mollie = await stack.issueKey('mollieshop', 'test');
  keys.adyen = await stack.issueKey('adyenshop', 'test');
  connections.mollie = await psps.connect('mollieshop', 'mollie');
  connections.adyen = await psps.connect('adyenshop', 'adyen');
});
afterAll(() => psps?.stop());

describe('checkout through a Mollie connection, end to end through the handlers', () => {
  it('creates a Mollie payment with our notification address and records it once Mollie says it is paid', async () => {
    const link = await createLink(stack, keys.mollie!.api_key, {
      redirect_url: 'https://shop.example/thanks',
    });
    const page = await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session).toMatchObject({ provider: 'mollie', connection_id: connections.mollie!.id });
    expect(page.headers['content-security-policy']).toMatch(/form-action https:\/\/www\.mollie\.com;/);
    const created = mollie.payments.get(session.id)!;
    expect(created.webhookUrl).toBe(`${stack.baseUrl}/psp/mollie/notifications/${connections.mollie!.id}`);

    const notify = () =>
      stack.request('POST', `/psp/mollie/notifications/${connections.mollie!.id}`, {
        rawBody: mollie.webhookBody(session.id),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    // Mollie calls the webhook on every status change: an open payment records nothing.
    expect((await notify()).body.outcome).toBe('ignored');
    mollie.setStatus(session.id, 'paid');
    const response = await notify();
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('paid');
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.mollie!.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: {
        id: session.payment_id,
        connection_id: connections.mollie!.id,
        provider: 'mollie',
        reference: session.id,
      },
    });
  });

  it('refuses (400) a webhook naming a payment the connection’s key cannot see', async () => {
    const response = await stack.request('POST', `/psp/mollie/notifications/${connections.mollie!.id}`, {
      rawBody: 'id=tr_notours123',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_notification');
  });

  it('answers a webhook it cannot check with Mollie with a 502, so that Mollie sends it again', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    mollie.outage = 'error';
    try {
      const response = await stack.request('POST', `/psp/mollie/notifications/${connections.mollie!.id}`, {
        rawBody: 'id=tr_duringanoutage',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(502);
      expect(response.body.code).toBe('psp_unavailable');
    } finally {
      mollie.outage = 'none';
    }
  });
});

describe('Mollie webhooks naming payments Mollie does not know', () => {
  it('looks each made-up id up once, and at most UNKNOWN_ID_LOOKUPS.limit (+1) of them per connection and window', async () => {
    // A connection of its own: its window of unknown ids is not shared with the other tests'.
    const flooded = await psps.connect('mollieshop', 'mollie');
    const post = (id: string) =>
      stack.request('POST', `/psp/mollie/notifications/${flooded.id}`, {
        rawBody: mollie.webhookBody(id),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const lookups = (id: string) =>
      mollie.requests.filter((request) => request.method === 'GET' && request.path === `/v2/payments/${id}`)
        .length;

    const repeated = [await post('tr_madeup0'), await post('tr_madeup0')];
    expect(repeated.map(({ status }) => status)).toEqual([400, 400]);
    expect(lookups('tr_madeup0')).toBe(1);

    const flood = Array.from({ length: 3 * UNKNOWN_ID_LOOKUPS.limit }, (_, n) => `tr_madeup${n + 1}`);
    const window = () => Math.floor(Date.now() / (UNKNOWN_ID_LOOKUPS.windowSeconds * 1000));
    const first = window();
    for (const id of flood) expect((await post(id)).status).toBe(400);
    // The flood may straddle two windows; each allows its limit (and the one lookup that finds it spent).
    const windows = window() - first + 1;
    const looked = flood.filter((id) => lookups(id) > 0).length;
    expect(looked).toBeLessThanOrEqual((UNKNOWN_ID_LOOKUPS.limit + 1) * windows);
    expect(looked).toBeLessThan(flood.length);
  });
});

describe('checkout through an Adyen connection, end to end through the handlers', () => {
  it('creates a payment link, answers [accepted], and records the payment once Adyen confirms it', async () => {
    const link = await createLink(stack, keys.adyen!.api_key, {
      redirect_url: 'https://shop.example/thanks',
    });
    const page = await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session).toMatchObject({ provider: 'adyen', connection_id: connections.adyen!.id });
    expect(page.headers['content-security-policy']).toMatch(/form-action https:\/\/test\.adyen\.link;/);

    const item = fakeAdyen.pay(session.id);
    const response = await stack.request('POST', `/psp/adyen/notifications/${connections.adyen!.id}`, {
      rawBody: fakeAdyen.notification([item], { hmacKey: adyen.hmac_key }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.body).toBe('[accepted]');
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: keys.adyen!.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: {
        id: session.payment_id,
        connection_id: connections.adyen!.id,
        provider: 'adyen',
        reference: item.pspReference,
      },
    });
  });

  it('refuses (400) a notification signed with another HMAC key, and records nothing', async () => {
    const link = await createLink(stack, keys.adyen!.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const item = fakeAdyen.pay(session.id);
    const response = await stack.request('POST', `/psp/adyen/notifications/${connections.adyen!.id}`, {
      rawBody: fakeAdyen.notification([item], { hmacKey: 'AB'.repeat(32) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect((await storedLink(link.id)).status).toBe('open');
  });
});
