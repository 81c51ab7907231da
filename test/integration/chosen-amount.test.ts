import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate, postOurForm } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * Buyer-chosen amounts (docs/checkout.md#buyer-chosen-amounts): `amount_range` on creation, the form on our page,
 * the session at the chosen amount, routing on it, one payable session, refunds bounded by what was paid.
 */
let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(async () => {
  await stack?.stop();
});

const RANGE = { currency: 'EUR', minimum: '5.00', maximum: '500.00', suggested: '25.00' };
const rangeLink = (key = acme.api_key, body: Record<string, unknown> = {}) =>
  createLink(stack, key, { amount: undefined, amount_range: RANGE, ...body });

/** The buyer sends the amount form from our own page, in `language` (with their cookie, on a reusable link). */
function choose(
  url: string,
  amount: string,
  options: { language?: string; extra?: string; cookie?: string } = {},
) {
  return postOurForm(url, `${new URLSearchParams({ amount })}${options.extra ?? ''}`, {
    ...(options.cookie ? { cookie: options.cookie } : {}),
    'accept-language': options.language ?? 'en',
  });
}

const paymentsOf = (id: string) => paymentRepository().listOfLink(id, 'test');

describe('creating a link with amount_range', () => {
  it('answers the resource with a null amount and the range as sent, as documented', async () => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { amount_range: { currency: 'EUR', minimum: '5', maximum: '500.00' } },
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      amount: null,
      amount_range: { currency: 'EUR', minimum: '5', maximum: '500.00', suggested: null },
    });
    expectDocumented('post', '/v1/payment-links', response);
  });

  it.each([
    [{ currency: 'EUR', minimum: '50.00', maximum: '5.00' }, '/amount_range/maximum'],
    [{ currency: 'EUR', minimum: '5.00', maximum: '50.00', suggested: '60' }, '/amount_range/suggested'],
    [{ currency: 'EUR', minimum: '5.00', maximum: '50.00', suggested: '4.99' }, '/amount_range/suggested'],
    [{ currency: 'JPY', minimum: '100.5', maximum: '1000' }, '/amount_range/minimum'],
    [{ currency: 'EUR', minimum: '0.00', maximum: '50.00' }, '/amount_range/minimum'],
    [{ currency: 'EUR', minimum: '5', maximum: '1e3' }, '/amount_range/maximum'],
    [{ currency: 'XAU', minimum: '5', maximum: '50' }, '/amount_range/currency'],
    [{ currency: 'EUR', minimum: '5' }, '/amount_range/maximum'],
    [{ currency: 'EUR', minimum: '5', maximum: '50', step: '1' }, '/amount_range/step'],
  ])('refuses %j with a pointer at %s', async (amount_range, pointer) => {
    const response = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { amount_range },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
  });

  it('refuses it beside amount or line_items, and refuses changing it', async () => {
    const both = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: { amount: { value: '10', currency: 'EUR' }, amount_range: RANGE },
    });
    expect([both.status, both.body.errors?.[0]?.pointer]).toEqual([422, '/amount_range']);
    const lines = await stack.request('POST', '/v1/payment-links', {
      key: acme.api_key,
      body: {
        line_items: [{ name: 'x', quantity: 1, unit_amount: { value: '1', currency: 'EUR' } }],
        amount_range: RANGE,
      },
    });
    expect([lines.status, lines.body.errors?.[0]?.pointer]).toEqual([422, '/amount_range']);
    const link = await rangeLink();
    const patch = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      body: { amount_range: { ...RANGE, maximum: '900.00' } },
    });
    expect([patch.status, patch.body.errors?.[0]?.pointer]).toEqual([422, '/amount_range']);
  });
});

describe('the checkout page of a link with amount_range', () => {
  it('asks for the amount in a script-free form that posts to itself, opening no session', async () => {
    const link = await rangeLink();
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${link.checkout_url}"`);
    expect(page.text).toContain('value="25.00"');
    expect(page.text).not.toContain('<script');
    expect(page.headers['content-security-policy']).toMatch(/form-action 'self';/);
    expect(await paymentsOf(link.id)).toEqual([]);
    expect((await storedLink(link.id)).psp_session).toBeNull();
  });

  it('re-displays the form with a 422 for an amount out of range or not a number, opening nothing', async () => {
    const link = await rangeLink();
    for (const typed of ['4,99', '500,01', 'tien', '10,505', '']) {
      const page = await choose(link.checkout_url, typed, { language: 'nl' });
      expect(page.status, typed).toBe(422);
      expect(page.text.replaceAll('\u00a0', ' ')).toContain('Vul een bedrag in tussen € 5,00 en € 500,00.');
      expect(page.text).toContain('aria-invalid="true"');
      expect(page.text).toContain(`value="${typed}"`);
    }
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('asks again, opening nothing, for an amount that reads two ways in a currency with three decimals', async () => {
    const dinars = { currency: 'TND', minimum: '5', maximum: '50000', suggested: '12.5' };
    const link = await rangeLink(acme.api_key, { amount_range: dinars });
    const page = await choose(link.checkout_url, '12.500', { language: 'fr' });
    expect(page.status).toBe(422);
    expect(page.text.replace(/[\u00a0\u202f]/g, ' ')).toContain(
      'Vouliez-vous dire 12,500 TND ou 12 500,000 TND ? Pour lever le doute, saisissez 12,5 ou 12500.',
    );
    expect(page.text).toContain('aria-invalid="true"');
    expect(page.text).toContain('value="12.500"');
    expect(await paymentsOf(link.id)).toEqual([]);
    expect((await storedLink(link.id)).psp_session).toBeNull();

    // The page writes 12.5 TND as `12,500` in French (its suggestion too): sent back, it is 12.5, not asked again.
    const form = await httpRequest(link.checkout_url, {
      headers: { ...NAVIGATION_HEADERS, 'accept-language': 'fr' },
    });
    expect(form.text).toContain('value="12,500"');
    expect((await choose(link.checkout_url, '12,500', { language: 'fr' })).status).toBe(303);
    const [payment] = await paymentsOf(link.id);
    expect(payment?.amount).toEqual({ value: '12.500', currency: 'TND' });
  });

  it('opens the session at the chosen amount, read in the buyer’s locale, then shows it with a GET', async () => {
    const link = await rangeLink(acme.api_key, { amount_range: { ...RANGE, maximum: '5000' } });
    const posted = await choose(link.checkout_url, '1.234,50', { language: 'de-DE' });
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe(link.checkout_url);
    const [payment] = await paymentsOf(link.id);
    expect(payment).toMatchObject({ status: 'pending', amount: { value: '1234.50', currency: 'EUR' } });
    const session = (await storedLink(link.id)).psp_session!;
    expect(session.amount).toEqual({ value: '1234.50', currency: 'EUR' });
    expect((await sandboxSessionStore().get(session.id))?.amount).toEqual({
      value: '1234.50',
      currency: 'EUR',
    });

    const page = await navigate(link.checkout_url);
    expect(page.text).toContain(`content="0;url=${session.url}"`);
    expect(await paymentsOf(link.id)).toHaveLength(1);
  });

  it('keeps one payable session: the same amount again shows it, another amount replaces it', async () => {
    const link = await rangeLink();
    await choose(link.checkout_url, '20');
    const [first] = await paymentsOf(link.id);
    expect((await choose(link.checkout_url, '20.00')).status).toBe(303);
    expect(await paymentsOf(link.id)).toHaveLength(1);

    expect((await choose(link.checkout_url, '30')).status).toBe(303);
    const payments = await paymentsOf(link.id);
    expect(payments.map((payment) => [payment.status, payment.amount?.value])).toEqual([
      ['pending', '30.00'],
      ['canceled', '20.00'],
    ]);
    expect((await sandboxSessionStore().get(first!.session_id!))?.status).toBe('expired');
    expect((await storedLink(link.id)).psp_session?.payment_id).toBe(payments[0]!.id);
  });

  it('answers a form sent from another site as a link preview: it chooses nothing and opens nothing', async () => {
    const link = await rangeLink();
    const page = await httpRequest(link.checkout_url, {
      method: 'POST',
      headers: {
        ...NAVIGATION_HEADERS,
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=499',
    });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<form method="post"');
    expect(page.text).toContain(`<a class="button" href="${link.checkout_url}">`);
    const named = await httpRequest(link.checkout_url, {
      method: 'POST',
      headers: {
        ...NAVIGATION_HEADERS,
        origin: 'https://elsewhere.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'amount=499',
    });
    expect(named.status).toBe(200);
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('records the paid amount on the link and bounds refunds by it', async () => {
    const link = await rangeLink();
    await choose(link.checkout_url, '42.10');
    const session = (await storedLink(link.id)).psp_session!;
    await sandboxSessionStore().complete(session.id, 'sbpay_chosen00000000000000000', new Date());
    const notified = await stack.request('POST', `/psp/sandbox/notifications/${session.connection_id}`, {
      ...sandboxNotification({ session_id: session.id, link_id: link.id }),
    });
    expect(notified.body.outcome).toBe('paid');

    const paid = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(paid.body).toMatchObject({
      status: 'paid',
      amount: null,
      payment: { amount: { value: '42.10', currency: 'EUR' } },
    });
    expectDocumented('get', '/v1/payment-links/{id}', paid);
    const refund = (body: unknown) =>
      stack.request('POST', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key, body });
    const tooMuch = await refund({ amount: { value: '42.11', currency: 'EUR' } });
    expect([tooMuch.status, tooMuch.body.errors?.[0]?.detail]).toEqual([
      422,
      'At most 42.10 EUR of the payment remains to be refunded.',
    ]);
    const all = await refund({});
    expect([all.status, all.body.amount]).toEqual([201, { value: '42.10', currency: 'EUR' }]);
  });
});

describe('routing a link with amount_range', () => {
  let key: IssuedApiKey;
  let small: PspConnection;
  let large: PspConnection;

  beforeAll(async () => {
    key = await stack.issueKey('router', 'test');
    const sandbox = (name: string) =>
      addConnection({ account: 'router', mode: 'test', provider: 'sandbox', name });
    small = await sandbox('small');
    large = await sandbox('large');
    const put = await stack.request('PUT', '/v1/routing', {
      key: key.api_key,
      body: {
        rules: [
          {
            name: 'large',
            when: { currency: ['EUR'], amount_min: '100.00' },
            // biome-ignore lint/suspicious/noThenProperty: the routing document's own field (PUT /v1/routing)
            then: { priority: [large.id] },
          },
        ],
        default: [small.id],
      },
    });
    expect(put.status).toBe(200);
  });

  it('routes on the amount the buyer chose', async () => {
    const low = await rangeLink(key.api_key);
    await choose(low.checkout_url, '99.99');
    expect((await storedLink(low.id)).psp_session?.connection_id).toBe(small.id);
    const high = await rangeLink(key.api_key);
    await choose(high.checkout_url, '100');
    expect((await storedLink(high.id)).psp_session?.connection_id).toBe(large.id);
    // The buyer changes their mind: the new amount is routed afresh.
    await choose(high.checkout_url, '10');
    expect((await storedLink(high.id)).psp_session?.connection_id).toBe(small.id);
  });
});

describe('a reusable link with amount_range', () => {
  it("gives each buyer their own session at their own amount, and changes only the buyer's own", async () => {
    const link = await rangeLink(acme.api_key, { reusable: true });
    const cookieOf = (page: { headers: Record<string, string | string[] | undefined> }) =>
      String([page.headers['set-cookie']].flat()[0]).split(';')[0] as string;
    const first = await choose(link.checkout_url, '20');
    const second = await choose(link.checkout_url, '30');
    expect([first.status, second.status]).toEqual([303, 303]);
    const amounts = async () =>
      (await paymentsOf(link.id)).map((payment) => [payment.status, payment.amount?.value]).sort();
    expect(await amounts()).toEqual([
      ['pending', '20.00'],
      ['pending', '30.00'],
    ]);
    // The first buyer changes their mind: their session is replaced, the second buyer's stays.
    expect((await choose(link.checkout_url, '25', { cookie: cookieOf(first) })).status).toBe(303);
    expect(await amounts()).toEqual([
      ['canceled', '20.00'],
      ['pending', '25.00'],
      ['pending', '30.00'],
    ]);
  });
});
