import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleStore } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startSession } from '../../functions/use-cases/console-sessions.ts';
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

beforeAll(async () => {
  stack = await startTestStack();
  [acme, globex] = await Promise.all([stack.issueKey('acme', 'test'), stack.issueKey('globex', 'test')]);
  [admin, viewer] = await Promise.all([
    signInToConsole(stack.baseUrl, 'acme', 'admin'),
    signInToConsole(stack.baseUrl, 'acme', 'viewer'),
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
    expect(page.text).not.toMatch(/\/cancel"|\/refunds"|action="\/console\/links"/);
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
