import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository } from '../../functions/dependencies.ts';
import {
  MAX_CLIENT_SESSIONS_PER_WINDOW,
  MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW,
} from '../../functions/domain/checkout.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { eventually } from '../support/eventually.ts';
import { httpRequest, NAVIGATION_HEADERS, type PageResponse } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * What one visitor can do to a link's checkout (docs/security.md#checkout-sessions): each client has its own small
 * budget of sessions, sessions we ended unused hold no place, nothing is ended before a new session may be opened,
 * a reusable link opens no more sessions than `max_payments` leaves places for, no other site opens one, and no
 * buyer sees another buyer's amount. Clients are told apart by their address: each test's buyers connect from
 * their own address of 127.0.0.0/8.
 */
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('limits', 'test');
});
afterAll(() => stack.stop());

/** A buyer's browser at `address`: it keeps the checkout's cookie, as a browser does, unless told to drop it. */
function browser(address: string, options: { keepsCookies?: boolean; language?: string } = {}) {
  let cookie: string | undefined;
  const send = async (url: string, method = 'GET', body?: string): Promise<PageResponse> => {
    const page = await httpRequest(url, {
      method,
      localAddress: address,
      headers: {
        ...NAVIGATION_HEADERS,
        ...(options.language ? { 'accept-language': options.language } : {}),
        ...(cookie ? { cookie } : {}),
        ...(body === undefined
          ? {}
          : { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }),
      },
      body,
    });
    const set = ([] as string[]).concat(page.headers['set-cookie'] ?? [])[0];
    if (set && options.keepsCookies !== false) cookie = set.split(';')[0];
    return page;
  };
  return {
    visit: (url: string) => send(url),
    choose: (url: string, amount: string) => send(url, 'POST', `amount=${encodeURIComponent(amount)}`),
    get payment() {
      return cookie?.split('=')[1];
    },
  };
}

const paymentsOf = (linkId: string) => paymentRepository().listOfLink(linkId, 'test');

describe('a visitor', () => {
  it('cannot lock a reusable link by visiting it without cookies: the next buyer still gets a session', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true });
    const bot = browser('127.0.0.2', { keepsCookies: false });
    const statuses: number[] = [];
    for (let visit = 0; visit < 100; visit++) statuses.push((await bot.visit(link.checkout_url)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW);
    expect(statuses.slice(MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW).every((status) => status === 429)).toBe(
      true,
    );
    expect(await paymentsOf(link.id)).toHaveLength(MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW);

    const buyer = browser('127.0.0.3');
    const page = await buyer.visit(link.checkout_url);
    expect(page.status).toBe(200);
    expect(buyer.payment).toMatch(/^pay_/);
  });

  it('cannot end a buyer-chosen amount’s sessions beyond its own budget, and leaves the last one payable', async () => {
    const link = await createLink(stack, key.api_key, {
      amount: undefined,
      amount_range: { currency: 'EUR', minimum: '1.00', maximum: '100.00' },
    });
    const visitor = browser('127.0.0.4');
    const statuses: number[] = [];
    for (let amount = 1; amount <= 11; amount++) {
      statuses.push((await visitor.choose(link.checkout_url, `${amount}.00`)).status);
    }
    expect(statuses.slice(0, MAX_CLIENT_SESSIONS_PER_WINDOW).every((status) => status === 303)).toBe(true);
    expect(statuses.slice(MAX_CLIENT_SESSIONS_PER_WINDOW).every((status) => status === 429)).toBe(true);

    const payments = await paymentsOf(link.id);
    expect(payments.filter((payment) => payment.status === 'pending')).toHaveLength(1);
    const last = payments.find((payment) => payment.status === 'pending');
    expect(last?.amount).toEqual({ value: `${MAX_CLIENT_SESSIONS_PER_WINDOW}.00`, currency: 'EUR' });
    expect((await storedLink(link.id)).psp_session?.payment_id).toBe(last?.id);
    // The replaced sessions hold no place: another buyer opens one.
    expect((await browser('127.0.0.5').choose(link.checkout_url, '20.00')).status).toBe(303);
  });

  it('never opens a session through a form another site sent', async () => {
    const link = await createLink(stack, key.api_key);
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'https://elsewhere.example' },
    ];
    for (const headers of foreign) {
      const page = await httpRequest(link.checkout_url, {
        method: 'POST',
        localAddress: '127.0.0.6',
        headers: { ...NAVIGATION_HEADERS, ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'amount=10.50',
      });
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<a class="button" href="${link.checkout_url}">`);
    }
    expect(await paymentsOf(link.id)).toEqual([]);
    expect((await storedLink(link.id)).psp_session).toBeNull();
  });
});

describe('a reusable link with max_payments', () => {
  it('opens no session beyond its places: the next buyer is told so in their language, until one frees up', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true, max_payments: 1 });
    const first = browser('127.0.0.7');
    expect((await first.visit(link.checkout_url)).status).toBe(200);

    const second = browser('127.0.0.8', { language: 'fr' });
    const refused = await second.visit(link.checkout_url);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('Plus de places pour le moment');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await paymentsOf(link.id)).toHaveLength(1);

    // The first buyer's attempt is declined: its place is free again.
    const session = await paymentRepository().get(link.id, 'test', first.payment ?? '');
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.session_id}/decline`, { method: 'POST' });
    await eventually(
      async () => (await paymentRepository().get(link.id, 'test', first.payment ?? ''))?.status === 'failed',
    );
    expect((await second.visit(link.checkout_url)).status).toBe(200);
  });
});

describe('a reusable link with a buyer-chosen amount', () => {
  it('never shows one buyer’s amount to another', async () => {
    const link = await createLink(stack, key.api_key, {
      amount: undefined,
      amount_range: { currency: 'EUR', minimum: '1.00', maximum: '100.00' },
      reusable: true,
    });
    const payer = browser('127.0.0.9');
    expect((await payer.choose(link.checkout_url, '42.17')).status).toBe(303);
    const paid = await paymentRepository().get(link.id, 'test', payer.payment ?? '');
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${paid?.session_id}/pay`, { method: 'POST' });
    await eventually(async () => Object.keys((await storedLink(link.id)).paid_payments ?? {}).length === 1);
    expect((await payer.visit(`${link.checkout_url}/complete`)).text).toContain('42.17');

    const other = browser('127.0.0.10');
    const pages = [
      await other.visit(`${link.checkout_url}/complete`),
      await httpRequest(link.checkout_url, { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0' } }),
      await other.visit(link.checkout_url),
    ];
    // Back from their own unpaid attempt: the retry page shows their amount, not the payer's.
    expect((await other.choose(link.checkout_url, '7.00')).status).toBe(303);
    const own = await paymentRepository().get(link.id, 'test', other.payment ?? '');
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${own?.session_id}/decline`, { method: 'POST' });
    await eventually(
      async () => (await paymentRepository().get(link.id, 'test', other.payment ?? ''))?.status === 'failed',
    );
    pages.push(await other.visit(`${link.checkout_url}?canceled=1`));
    for (const page of pages) expect(page.text).not.toContain('42.17');
    expect(pages.at(-1)?.text).toContain('7.00');
  });
});
