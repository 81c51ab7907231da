import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { ConcurrentModificationError } from '../../functions/domain/errors.ts';
import {
  MAX_CLIENT_SESSIONS_PER_WINDOW,
  MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW,
  REUSABLE_CLIENT_WINDOW_MS,
} from '../../functions/domain/session-budgets.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { browser, buyersAt } from '../support/buyers.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { eventually, timeoutForSteps } from '../support/eventually.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
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

/** Pays the buyer's own session at the sandbox, as the buyer would on its page. */
async function pay(linkId: string, paymentId: string) {
  const payment = await paymentRepository().get(linkId, 'test', paymentId);
  const paid = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${payment?.session_id}/pay`, {
    method: 'POST',
  });
  expect(paid.status).toBeLessThan(400);
}

/** The link's payable sessions now: pending payments whose session has not expired. */
async function payable(linkId: string) {
  const payments = await paymentsOf(linkId);
  return payments.filter(
    (payment) => payment.status === 'pending' && Date.parse(payment.session_expires_at ?? '') > Date.now(),
  );
}

describe('buyers opening a reusable link with max_payments at once, each from their own address', () => {
  it(
    'give its one place to exactly one of 16, in each of 20 rounds: no session and no payment beyond it',
    async () => {
      for (let round = 1; round <= 20; round++) {
        const link = await createLink(stack, key.api_key, { reusable: true, max_payments: 1 });
        const buyers = buyersAt(round, 16);
        const pages = await Promise.all(buyers.map((buyer) => buyer.visit(link.checkout_url)));
        const served = buyers.filter((_, index) => pages[index]?.status === 200);
        expect(served, `round ${round}`).toHaveLength(1);
        expect(
          pages.filter((page) => page.status === 409),
          `round ${round}`,
        ).toHaveLength(15);
        expect(await payable(link.id)).toHaveLength(1);

        // Every buyer who got a session pays on it: the link takes one payment, and no duplicate.
        for (const buyer of served) await pay(link.id, buyer.payment ?? '');
        const paid = await eventually(async () => {
          const stored = await storedLink(link.id);
          return stored.status === 'completed' && stored;
        });
        expect(Object.keys(paid.paid_payments)).toEqual([served[0]?.payment]);
        const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, {
          key: key.api_key,
        });
        expect(events.body.data.map((event: { type: string }) => event.type)).not.toContain(
          'payment_link.duplicate_payment',
        );
      }
    },
    timeoutForSteps(20),
  );

  it('never have more than max_payments payable sessions of max_payments 3, however 12 of them race', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true, max_payments: 3 });
    const first = buyersAt(30, 12);
    const pages = await Promise.all(first.map((buyer) => buyer.visit(link.checkout_url)));
    const served = first.filter((_, index) => pages[index]?.status === 200);
    expect(served).toHaveLength(3);
    expect(await payable(link.id)).toHaveLength(3);

    // One pays, one is declined: the declined one's place is free again, and only that one.
    const [payer, declined, waiting] = served;
    await pay(link.id, payer?.payment ?? '');
    const session = await paymentRepository().get(link.id, 'test', declined?.payment ?? '');
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.session_id}/decline`, { method: 'POST' });
    await eventually(async () => (await payable(link.id)).length === 1);

    const second = buyersAt(31, 12);
    const again = await Promise.all(second.map((buyer) => buyer.visit(link.checkout_url)));
    const next = second.filter((_, index) => again[index]?.status === 200);
    expect(next).toHaveLength(1);
    expect(await payable(link.id)).toHaveLength(2);

    for (const buyer of [waiting, ...next]) await pay(link.id, buyer?.payment ?? '');
    const completed = await eventually(async () => {
      const stored = await storedLink(link.id);
      return stored.status === 'completed' && Object.keys(stored.paid_payments).length === 3 && stored;
    });
    expect(Object.keys(completed.paid_payments).sort()).toEqual(
      [payer, waiting, ...next].map((buyer) => buyer?.payment).sort(),
    );
  });
});

describe('the places of a reusable link, as stored', () => {
  it('go to one of many openings taking the same place at once, and only while each holds what was read', async () => {
    const created = await createLink(stack, key.api_key, { reusable: true, max_payments: 2 });
    const read = await storedLink(created.id);
    const until = new Date(Date.now() + 60_000).toISOString();
    const takes = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        linkRepository().holdPlace(read, 0, null, { holder: `opening_${index}`, until }),
      ),
    );
    expect(takes.filter(Boolean)).toHaveLength(1);
    const opening = `opening_${takes.indexOf(true)}`;
    // A write of the whole link read before the place was taken cannot drop it.
    await expect(linkRepository().update(read, { ...read, version: read.version + 1 })).rejects.toThrow(
      ConcurrentModificationError,
    );

    // Only its holder hands it on; a holder that lost it cannot, nor can anyone take it from what it was.
    const held = await storedLink(created.id);
    expect(held.places).toEqual({ 0: { holder: opening, until } });
    const session = { holder: 'pay_1', until: new Date(Date.now() + 3_600_000).toISOString() };
    await expect(linkRepository().keepPlace(held, 0, 'opening_other', session)).rejects.toThrow(
      ConcurrentModificationError,
    );
    await linkRepository().keepPlace(held, 0, opening, session);
    expect(await linkRepository().holdPlace(held, 0, held.places[0] ?? null, { holder: 'x', until })).toBe(
      false,
    );
    await linkRepository().releasePlace(held, 0, opening);
    expect((await storedLink(created.id)).places).toEqual({ 0: session });

    // A place as read is taken (its payment ended, say); an opening that opened nothing gives its own back.
    const kept = await storedLink(created.id);
    expect(await linkRepository().holdPlace(kept, 0, session, { holder: 'opening_next', until })).toBe(true);
    await linkRepository().releasePlace(kept, 0, 'opening_next');
    expect((await storedLink(created.id)).places).toEqual({});
  });
});

describe('an opening that opens nothing', () => {
  it('gives its place back at once: the next buyer is not told the link is full', async () => {
    const down = await stack.issueKey('limits-down', 'test');
    await addConnection({
      account: 'limits-down',
      mode: 'test',
      provider: 'sandbox',
      name: 'down',
      simulate: 'fail',
    });
    const link = await createLink(stack, down.api_key, { reusable: true, max_payments: 1 });
    expect((await browser('127.0.50.1').visit(link.checkout_url)).status).toBe(503);
    expect((await storedLink(link.id)).places).toEqual({});
    expect((await browser('127.0.50.2').visit(link.checkout_url)).status).toBe(503);
  });
});

describe('a reusable link visited from many addresses', () => {
  it('still gives a new buyer a session after 10 cookie-less visits from each of 20 addresses, and refuses a client for at most 10 minutes', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true });
    const bots = buyersAt(40, 20, { keepsCookies: false });
    const visits = await Promise.all(
      bots.map(async (bot) => {
        const statuses: number[] = [];
        for (let visit = 0; visit < 10; visit++) statuses.push((await bot.visit(link.checkout_url)).status);
        return statuses;
      }),
    );
    expect(visits.flat().every((status) => status === 200)).toBe(true);

    const buyer = browser('127.0.41.1');
    expect((await buyer.visit(link.checkout_url)).status).toBe(200);
    expect(buyer.payment).toMatch(/^pay_/);

    // An address past its own budget waits minutes, not an hour.
    const refused = await bots[0]?.visit(link.checkout_url);
    expect(refused?.status).toBe(429);
    const wait = Number(refused?.headers['retry-after']);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(REUSABLE_CLIENT_WINDOW_MS / 1000);
    expect(REUSABLE_CLIENT_WINDOW_MS).toBeLessThanOrEqual(10 * 60_000);
  });
});
