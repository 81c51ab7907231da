import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleStore } from '../../functions/dependencies.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startSession } from '../../functions/use-cases/console-sessions.ts';
import { seedPayment } from '../support/books.ts';
import { createLink } from '../support/checkout-helpers.ts';
import {
  type ConsoleClient,
  consoleClient,
  consoleSignInLink,
  expiredSignInToken,
  signInToConsole,
} from '../support/console.ts';
import { httpRequest } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let globex: IssuedApiKey;
let admin: ConsoleClient;
let viewer: ConsoleClient;
let finance: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  [acme, globex] = await Promise.all([stack.issueKey('acme', 'test'), stack.issueKey('globex', 'test')]);
  [admin, viewer, finance] = await Promise.all([
    signInToConsole(stack.baseUrl, 'acme', 'admin'),
    signInToConsole(stack.baseUrl, 'acme', 'viewer'),
    signInToConsole(stack.baseUrl, 'acme', 'finance'),
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

const postSignIn = (token: string) =>
  httpRequest(`${stack.baseUrl}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }).toString(),
  });

describe('console sign-in links', () => {
  it('sign in once, then refuse the same link, a forged one and an expired one', async () => {
    const token =
      new URL(await consoleSignInLink(stack.baseUrl, 'acme', 'admin')).searchParams.get('token') ?? '';

    const first = await postSignIn(token);
    const replayed = await postSignIn(token);
    const forged = await postSignIn(`${token.slice(0, -4)}AAAA`);
    const expired = await postSignIn(await expiredSignInToken('acme', 'admin'));

    expect(first.status).toBe(303);
    expect(String(first.headers['set-cookie'])).toMatch(
      /^console_session=[\w-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/,
    );
    expect([replayed.status, forged.status, expired.status]).toEqual([401, 401, 401]);
    expect(replayed.headers['set-cookie']).toBeUndefined();
  });

  it('opening a sign-in link shows a button and does not use the link up', async () => {
    const link = await consoleSignInLink(stack.baseUrl, 'acme', 'admin');

    const previewed = await httpRequest(link);
    const used = await postSignIn(new URL(link).searchParams.get('token') ?? '');

    expect(previewed.status).toBe(200);
    expect(previewed.headers['content-security-policy']).toContain("default-src 'none'");
    expect(used.status).toBe(303);
  });
});

describe('console sessions', () => {
  it('send a visitor without a session to sign in, and refuse their forms', async () => {
    const page = await httpRequest(`${stack.baseUrl}/console/links`);
    const form = await consoleClient(stack.baseUrl, 'console_session=nope', 'x').post('/console/links', {
      amount: '5.00',
      currency: 'EUR',
    });

    expect([page.status, page.headers.location]).toEqual([303, '/console/sign-in']);
    expect(form.status).toBe(401);
  });

  it('refuse a session that ended', async () => {
    const { sessionId, session } = await startSession(
      { store: consoleStore(), now: () => new Date(Date.now() - 31 * 60_000) },
      { account: 'acme', role: 'admin', user: 'admin@acme' },
    );
    const idle = consoleClient(stack.baseUrl, `console_session=${sessionId}`, session.csrf_token);

    const page = await idle.get('/console/links');
    const form = await idle.post('/console/links', { amount: '5.00', currency: 'EUR' });

    expect([page.status, page.headers.location]).toEqual([303, '/console/sign-in']);
    expect(form.status).toBe(401);
  });

  it('refuse a form without its session CSRF token or with another one', async () => {
    const missing = await admin.post('/console/links', { amount: '5.00', currency: 'EUR', csrf_token: null });
    const wrong = await admin.post('/console/links', {
      amount: '5.00',
      currency: 'EUR',
      csrf_token: viewer.csrf,
    });

    expect([missing.status, wrong.status]).toEqual([403, 403]);
  });
});

describe('console roles and accounts', () => {
  it('show a viewer no form that changes anything and refuse the forms sent anyway', async () => {
    const link = await createLink(stack, acme.api_key);

    const page = await viewer.get(`/console/links/${link.id}`);
    const create = await viewer.post('/console/links', { amount: '5.00', currency: 'EUR' });
    const cancel = await viewer.post(`/console/links/${link.id}/cancel`, {});
    const refund = await viewer.post(`/console/links/${link.id}/refunds`, {});
    const audit = await viewer.get('/console/audit');
    const webhooks = await viewer.get('/console/webhooks');
    const addEndpoint = await viewer.post('/console/webhooks', { url: 'https://hooks.example.com/x' });
    const psps = await viewer.get('/console/psps');
    const exports = await viewer.get('/console/exports');
    const settings = await viewer.post('/console/settings', {
      display_name: 'Viewer was here',
      action: 'save',
    });
    const routing = await viewer.post('/console/routing', { routing: '{"rules":[],"default":[]}' });

    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/\/cancel"|\/links\/pl_\w+\/refunds"|action="\/console\/links"/);
    expect(webhooks.status).toBe(200);
    expect(webhooks.text).not.toContain('method="post" action="/console/webhooks');
    expect([psps.status, psps.text.includes('action="/console/routing"')]).toEqual([200, false]);
    expect([
      create.status,
      cancel.status,
      refund.status,
      audit.status,
      addEndpoint.status,
      routing.status,
      exports.status,
      settings.status,
    ]).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body.status).toBe('open');
  });

  it("answer 404 for another account's link and event, and change nothing of them", async () => {
    const theirs = await createLink(stack, globex.api_key);

    await stack.request('POST', `/v1/payment-links/${theirs.id}/cancel`, { key: globex.api_key });
    const events = await stack.request('GET', '/v1/events', { key: globex.api_key });
    const theirEvent = events.body.data[0].id;

    const page = await admin.get(`/console/links/${theirs.id}`);
    const cancel = await admin.post(`/console/links/${theirs.id}/cancel`, {});
    const event = await admin.get(`/console/events/${theirEvent}`);
    const redeliver = await admin.post(`/console/events/${theirEvent}/redeliver`, {});

    expect([page.status, cancel.status, event.status, redeliver.status]).toEqual([404, 404, 404, 404]);
    expect(theirEvent).toMatch(/^evt_/);
  });

  it('records who changed what, and from where, for admins', async () => {
    const created = await admin.post('/console/links', {
      amount: '7.00',
      currency: 'EUR',
      description: 'Audited',
    });
    const id = /\/console\/links\/(pl_\w+)/.exec(String(created.headers.location))?.[1];

    const audit = await admin.get('/console/audit');

    expect(created.status).toBe(303);
    expect(audit.status).toBe(200);
    expect(audit.text).toMatch(
      new RegExp(
        `admin@acme \\(admin\\)</td><td>link.create</td>\\s*<td>${id}</td><td>test</td><td>127.0.0.1</td>`,
      ),
    );
  });
});

describe('console books: payments, exports and buyer details', () => {
  const EMAIL = 'ada.console@example.com';
  const PERIOD = { from: '2026-03-01', to: '2026-03-31' };
  const seedWithBuyer = (created_at: string) =>
    seedPayment('acme', {
      created_at,
      client_reference_id: 'order-4711',
      buyer: { email: EMAIL, name: 'Ada Console' },
      custom_fields: [{ key: 'vat', label: 'VAT number', type: 'text', value: 'NL123' }],
    });

  it("show a payment's reference, answers and link to all, its buyer to admin and finance only", async () => {
    const payment = await seedWithBuyer('2026-03-10T10:00:00.000Z');

    const pages = await Promise.all(
      [admin, finance, viewer].map((client) =>
        client.get('/console/payments?client_reference_id=order-4711'),
      ),
    );

    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.text).toContain(payment.id);
      expect(page.text).toContain(`href="/console/links/${payment.link_id}"`);
      expect(page.text).toContain('VAT number: NL123');
    }
    expect(pages.map((page) => page.text.includes(EMAIL))).toEqual([true, true, false]);
    expect(pages.map((page) => page.text.includes(`/console/payments/${payment.id}/erase`))).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('download the CSV the API gives for the same period and filters, audited, and refuse a longer period', async () => {
    await seedWithBuyer('2026-03-12T10:00:00.000Z');

    const download = await finance.post('/console/exports', {
      of: 'payments',
      ...PERIOD,
      status: 'succeeded',
    });
    const api = await stack.request(
      'GET',
      '/v1/payments?created[gte]=2026-03-01T00:00:00Z&created[lt]=2026-04-01T00:00:00.000Z&status=succeeded',
      { key: acme.api_key, headers: { accept: 'text/csv' } },
    );
    const tooLong = await finance.post('/console/exports', {
      of: 'refunds',
      from: '2026-03-01',
      to: '2026-04-05',
    });
    const audit = await admin.get('/console/audit');

    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="payments.csv"');
    expect(download.text).toBe(api.body);
    expect(download.text).toContain(EMAIL);
    expect(tooLong.status).toBe(400);
    expect(tooLong.text).toContain('At most 31 days');
    expect(audit.text).toMatch(/finance@acme \(finance\)<\/td><td>export.read<\/td>/);
  });

  it("let an admin erase a payment's buyer after confirming, audited", async () => {
    const payment = await seedWithBuyer('2026-03-14T10:00:00.000Z');
    // The buyer's declined attempt on the same link, and another buyer's.
    const declined = await seedPayment('acme', {
      created_at: '2026-03-14T09:50:00.000Z',
      link_id: payment.link_id,
      status: 'failed',
      client_reference_id: 'order-4711',
      buyer: { email: EMAIL },
    });
    const another = await seedPayment('acme', {
      created_at: '2026-03-14T09:55:00.000Z',
      link_id: payment.link_id,
      client_reference_id: 'order-4712',
      buyer: { email: 'another@example.com' },
    });
    const alone = await seedWithBuyer('2026-03-14T11:00:00.000Z');

    const unconfirmed = await admin.post(`/console/payments/${payment.id}/erase`, {});
    const confirmation = await admin.get(`/console/payments/${payment.id}/erase`);
    const aloneConfirmation = await admin.get(`/console/payments/${alone.id}/erase`);
    const erased = await admin.post(`/console/payments/${payment.id}/erase`, { confirm: 'yes' });
    const page = await admin.get(`/console/payments?link_id=${payment.link_id}`);
    const audit = await admin.get('/console/audit');

    expect([unconfirmed.status, unconfirmed.headers.location]).toEqual([
      303,
      `/console/payments/${payment.id}/erase`,
    ]);
    expect(confirmation.text).toContain('name="confirm" value="yes"');
    // It says what it will erase: the payment, the buyer's other attempt, and what it cannot find.
    const { books } = await loadConsoleMessages('en');
    expect(confirmation.text).toContain(`<code>${payment.id}</code> ${books.eraseQuestion[1]}`);
    expect(confirmation.text).toContain(`${payment.link_id}</a> ${books.eraseAlso[1]}`);
    expect(confirmation.text).toContain(`<li><code>${declined.id}</code>: failed, `);
    expect(confirmation.text).not.toContain(another.id);
    expect(confirmation.text).toContain(books.eraseUnlinked);
    expect(aloneConfirmation.text).toContain(books.eraseNoOthers[0]);
    expect(aloneConfirmation.text).not.toContain('<li>');
    expect(erased.status).toBe(303);
    // The reference goes with the buyer (docs/security.md#personal-data): the payments are found by their link.
    expect(page.text).toMatch(new RegExp(`${payment.id}[\\s\\S]*?erased on`));
    expect(page.text).toMatch(new RegExp(`${declined.id}[\\s\\S]*?erased on`));
    expect(page.text).not.toContain(EMAIL);
    expect(page.text).toContain('another@example.com');
    expect(audit.text).toContain(`<td>buyer.erase</td>\n<td>${payment.id}</td>`);
  });

  it('find the links of the payments with a client reference, and say which references cannot be', async () => {
    const link = await createLink(stack, acme.api_key);
    await seedPayment('acme', {
      created_at: '2026-03-18T10:00:00.000Z',
      link_id: link.id,
      client_reference_id: 'cart-99',
    });

    const found = await viewer.get('/console/links?reference=cart-99');
    const invalid = await viewer.get('/console/links?reference=no%20spaces');

    expect(found.status).toBe(200);
    expect(found.text.match(/href="\/console\/links\/pl_\w+"/g)).toEqual([
      `href="/console/links/${link.id}"`,
    ]);
    expect([invalid.status, invalid.text.includes('aria-invalid="true"')]).toEqual([400, true]);
  });

  it('find links by a metadata value as the API finds them, and say what cannot be searched', async () => {
    const order = `order-${Date.now()}`;
    const tagged = await createLink(stack, acme.api_key, { metadata: { order_id: order } });
    await createLink(stack, acme.api_key, { metadata: { order_id: `${order}-2` } });
    await createLink(stack, globex.api_key, { metadata: { order_id: order } });
    const search = (fields: Record<string, string>) =>
      viewer.get(`/console/links?${new URLSearchParams(fields).toString()}`);

    const found = await search({ metadata_key: 'order_id', metadata_value: order });
    const noKey = await search({ metadata_key: ' ', metadata_value: order });
    const longKey = await search({ metadata_key: 'k'.repeat(41), metadata_value: order });

    expect(found.status).toBe(200);
    expect(found.text.match(/href="\/console\/links\/pl_\w+"/g)).toEqual([
      `href="/console/links/${tagged.id}"`,
    ]);
    expect(found.text).toContain(`metadata order_id is ${order}`);
    for (const refused of [noKey, longKey]) {
      expect([refused.status, refused.text.includes('aria-invalid="true"')]).toEqual([400, true]);
      expect(refused.text).not.toMatch(/href="\/console\/links\/pl_\w+"/);
    }
    expect(noKey.text).toContain('Give the metadata key');
  });

  it("page the payments by the API's cursor, and show and erase nothing of another account", async () => {
    const seeded = await Promise.all(
      Array.from({ length: 26 }, (_, index) =>
        seedPayment('acme', {
          created_at: `2026-04-01T10:00:${String(index).padStart(2, '0')}.000Z`,
          client_reference_id: 'paged',
        }),
      ),
    );
    const theirs = await seedPayment('globex', {
      created_at: '2026-04-01T11:00:00.000Z',
      client_reference_id: 'paged',
      buyer: { email: 'theirs@example.com' },
    });

    const first = await finance.get('/console/payments?client_reference_id=paged');
    const older = /href="(\/console\/payments\?[^"]*cursor=[^"]+)">Older/.exec(first.text)?.[1] ?? '';
    const second = await finance.get(older.replaceAll('&amp;', '&'));
    const confirm = await admin.get(`/console/payments/${theirs.id}/erase`);
    const erase = await admin.post(`/console/payments/${theirs.id}/erase`, { confirm: 'yes' });

    const ids = (text: string) => text.match(/<td>pay_\w+<\/td>/g) ?? [];
    expect([ids(first.text).length, ids(second.text).length]).toEqual([25, 1]);
    expect(second.text).toContain(`<td>${seeded[0]?.id}</td>`);
    expect(first.text + second.text).not.toContain(theirs.id);
    expect([confirm.status, erase.status]).toEqual([404, 404]);
    expect(confirm.text).not.toContain(theirs.id);
  });

  it('show a viewer no export form or erasure, and refuse them sent anyway', async () => {
    const payment = await seedWithBuyer('2026-03-16T10:00:00.000Z');

    const exportsPage = await viewer.get('/console/exports');
    const download = await viewer.post('/console/exports', { of: 'payments', ...PERIOD });
    const financeErase = await finance.get(`/console/payments/${payment.id}/erase`);
    const confirm = await viewer.get(`/console/payments/${payment.id}/erase`);
    const erase = await viewer.post(`/console/payments/${payment.id}/erase`, { confirm: 'yes' });
    const read = await finance.get('/console/payments?client_reference_id=order-4711');

    expect(exportsPage.text).not.toContain('action="/console/exports"');
    expect([exportsPage.status, download.status, financeErase.status, confirm.status, erase.status]).toEqual([
      403, 403, 403, 403, 403,
    ]);
    expect(download.text).not.toContain(EMAIL);
    expect(read.text).toContain(EMAIL);
  });
});
