import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInToConsole } from '../support/console.ts';
import { httpRequest } from '../support/navigate.ts';
import { MONTHLY, runAt, stored, subscriptionWorld } from '../support/subscriptions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { type Receiver, startReceiver } from '../support/webhooks.ts';

/**
 * The console's subscriptions (docs/console.md#subscriptions): the list and its filters, a subscription's page with
 * its renewals and latest failure, and its cancel, now or at the period's end, after a confirmation, audited; a
 * viewer sees no cancel and is refused one sent anyway.
 */
let stack: TestStack;
let receiver: Receiver;
const { account, subscribe } = subscriptionWorld(() => ({ stack, receiver }), 'console-subs');

beforeAll(async () => {
  // The tests renew through the sweeper's use case at the times they choose: no timer may take that work first.
  stack = await startTestStack({ schedules: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await stack.stop();
});

/** A fresh account with one monthly subscription, and its admin, finance and viewer signed in. */
async function world(simulate: Parameters<typeof account>[0] = 'ok') {
  const key = await account(simulate);
  const subscription = await subscribe(key.api_key, { recurring: MONTHLY, metadata: { plan: 'gold' } });
  const [admin, finance, viewer] = await Promise.all([
    signInToConsole(stack.baseUrl, key.account, 'admin'),
    signInToConsole(stack.baseUrl, key.account, 'finance'),
    signInToConsole(stack.baseUrl, key.account, 'viewer'),
  ]);
  return { key, subscription, admin, finance, viewer, path: `/console/subscriptions/${subscription.id}` };
}

describe('the console subscriptions', () => {
  it('lists them with every id a link, filters them by the API’s filters, and finds one by its id in the search box', async () => {
    const { subscription, admin } = await world();

    const [all, active, canceled, badLink, searched] = await Promise.all([
      admin.get('/console/subscriptions'),
      admin.get(`/console/subscriptions?status=active&link_id=${subscription.link_id}`),
      admin.get('/console/subscriptions?status=canceled'),
      admin.get('/console/subscriptions?link_id=nope'),
      admin.get(`/console/search?q=${subscription.id}`),
    ]);

    expect(all.status).toBe(200);
    expect(all.text).toContain(`<a href="/console/subscriptions/${subscription.id}">${subscription.id}</a>`);
    expect(all.text).toContain(
      `<a href="/console/links/${subscription.link_id}">${subscription.link_id}</a>`,
    );
    expect(all.text).toContain('€10.50 every month');
    expect(all.text).toContain('Sandbox (sandbox)');
    expect(active.text).toContain(subscription.id);
    expect(canceled.text).not.toContain(subscription.id);
    expect(canceled.text).toContain('No subscriptions.');
    expect(badLink.status).toBe(400);
    expect(badLink.text).toContain('aria-invalid="true" aria-describedby="link_id-error"');
    expect([searched.status, searched.headers.location]).toEqual([
      303,
      `/console/subscriptions/${subscription.id}`,
    ]);
  });

  it('shows a subscription’s status, terms, period, next charge, renewals and latest failure with its retry', async () => {
    const { subscription, admin, path } = await world('renewal_soft_decline');
    const declined = await runAt(subscription, subscription.current_period_end);

    const page = await admin.get(path);
    const german = await httpRequest(`${stack.baseUrl}${path}`, {
      headers: { cookie: admin.cookie, 'accept-language': 'de' },
    });

    expect(declined?.status).toBe('past_due');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Status<\/dt><dd>past due<\/dd>/);
    expect(page.text).toContain('€10.50 every month');
    // The period being collected is the current one: period 2, from the end of the period paid.
    expect(page.text).toContain(
      `Period 2: ${subscription.current_period_end.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} to`,
    );
    expect(page.text).toMatch(/Next charge<\/dt><dd>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/dd>/);
    expect(page.text).toContain(
      `<a href="/console/links/${subscription.link_id}/payments/${subscription.first_payment_id}">`,
    );
    expect(page.text).toContain('<code>plan</code>: gold');
    expect(page.text).toMatch(/Latest failure<\/h2>\s*<p>.*Period 2: soft decline, <code>sandbox:/s);
    expect(page.text).toContain('Period 2: 1 attempt declined, next attempt');
    const renewalPath = new RegExp(
      `<tr><td><a href="(${path}/payments/pay_\\w+)">pay_\\w+</a></td>.*?declined</td>.*?soft decline`,
      's',
    ).exec(page.text)?.[1];
    expect(renewalPath).toBeDefined();
    const renewal = await admin.get(renewalPath ?? '');
    const missing = await admin.get(`${path}/payments/${subscription.first_payment_id}`);
    expect(renewal.status).toBe(200);
    expect(renewal.text).toMatch(/Status<\/dt><dd>declined<\/dd>/);
    expect(renewal.text).toContain('<code>sandbox:insufficient_funds</code>');
    expect(renewal.text).toContain(`<a href="${path}">${subscription.id}</a>`);
    // The first payment is its link's, with a page there: not a renewal.
    expect(missing.status).toBe(404);
    expect(page.text).toContain('Cancel now');
    // Intl writes a no-break space before the euro sign.
    expect(german.text).toContain('<dd>überfällig</dd>');
    expect(german.text).toContain('10,50\u00a0€ pro Monat');
    expect(german.text).toContain('Periode 2: 1 Versuch abgelehnt, nächster Versuch');
  });

  it('cancels at the period’s end (admin) or now (finance) after a confirmation, each in the audit log', async () => {
    const { subscription, admin, finance, path } = await world();

    const confirm = await admin.get(`${path}/cancel?when=period_end`);
    const untouched = await stored(subscription.id);
    const atEnd = await admin.post(`${path}/cancel`, { at_period_end: 'true' });
    const ending = await stored(subscription.id);
    const endingPage = await admin.get(`${path}?notice=ending`);
    const now = await finance.post(`${path}/cancel`, { at_period_end: 'false' });
    const canceled = await stored(subscription.id);
    const audit = await admin.get('/console/audit');

    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain(`Cancel subscription ${subscription.id} at the end of the period paid`);
    expect(confirm.text).toContain('name="at_period_end" value="true"');
    expect(untouched.cancel_at_period_end).toBe(false);
    expect([atEnd.status, atEnd.headers.location]).toEqual([303, `${path}?notice=ending`]);
    expect(ending).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(endingPage.text).toContain('The subscription cancels at the end of its period.');
    expect(endingPage.text).not.toContain('value="period_end"');
    expect([now.status, now.headers.location]).toEqual([303, `${path}?notice=canceled`]);
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'requested' });
    const entries = [...audit.text.matchAll(/<code>subscription\.cancel<\/code><\/td>\s*<td>(.*?)<\/td>/gs)];
    expect(entries.map((entry) => entry[1])).toEqual([
      `subscription <a href="/console/subscriptions/${subscription.id}">${subscription.id}</a>`,
      `subscription <a href="/console/subscriptions/${subscription.id}">${subscription.id}</a>`,
    ]);
  });

  it('shows a viewer no cancel, refuses one sent anyway, and answers 404 for another account’s', async () => {
    const { subscription, viewer, admin, path } = await world();
    const other = await world();

    const page = await viewer.get(path);
    const confirm = await viewer.get(`${path}/cancel?when=now`);
    const sent = await viewer.post(`${path}/cancel`, { at_period_end: 'false' });
    const foreign = await admin.get(`/console/subscriptions/${other.subscription.id}`);
    const foreignCancel = await admin.post(`/console/subscriptions/${other.subscription.id}/cancel`, {
      at_period_end: 'false',
    });
    const audit = await admin.get('/console/audit');

    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Cancel now');
    expect([confirm.status, sent.status]).toEqual([403, 403]);
    expect((await stored(subscription.id)).status).toBe('active');
    expect([foreign.status, foreignCancel.status]).toEqual([404, 404]);
    expect((await stored(other.subscription.id)).status).toBe('active');
    expect(audit.text).toMatch(/<code>subscription\.cancel<\/code>.*?refused/s);
  });
});
