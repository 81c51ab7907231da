import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSessionStore } from '../../functions/dependencies.ts';
import { BUILT_IN_SANDBOX_ID } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * The console's refund dialog (docs/console.md#refunds): the amount as the page's language writes it, shown back
 * before it is confirmed; a reason from a list, stored on the refund and in the audit log.
 */
let stack: TestStack;
let key: IssuedApiKey;
let admin: ConsoleClient;
let viewer: ConsoleClient;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('acme', 'test');
  [admin, viewer] = await Promise.all([
    signInToConsole(stack.baseUrl, 'acme', 'admin'),
    signInToConsole(stack.baseUrl, 'acme', 'viewer'),
  ]);
});
afterAll(async () => {
  await stack?.stop();
});

/** A link of `value` EUR paid on the sandbox: its id and its payment's page. */
async function paidLink(value: string) {
  const link = await createLink(stack, key.api_key, { amount: { value, currency: 'EUR' } });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('The checkout opened no session');
  await sandboxSessionStore().complete(session.id, `sbpay_refunds_${session.id}`, new Date());
  const paid = sandboxNotification({ session_id: session.id, link_id: link.id });
  await stack.request('POST', `/psp/sandbox/notifications/${BUILT_IN_SANDBOX_ID}`, paid);
  const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key });
  const paymentId: string = payments.body.data[0].id;
  return { linkId: link.id, paymentId, path: `/console/links/${link.id}/payments/${paymentId}` };
}

/** A GET of the console in `language`. */
const inLanguage = (client: ConsoleClient, path: string, language: string) =>
  httpRequest(`${stack.baseUrl}${path}`, { headers: { cookie: client.cookie, 'accept-language': language } });

/** The hidden fields of the confirmation's form. */
const hiddenFields = (text: string) =>
  Object.fromEntries(
    [...text.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
  );

describe('the console refund dialog', () => {
  it('offers what remains as German writes it, reads a German amount back in words, and refunds it with its reason', async () => {
    const { linkId, paymentId, path } = await paidLink('1234.50');

    const page = await inLanguage(admin, path, 'de');
    const review = await inLanguage(
      admin,
      `${path}/refund?${new URLSearchParams({ amount: '1.002,50', reason: 'duplicate', detail: '' })}`,
      'de',
    );
    const fields = hiddenFields(review.text);
    const made = await admin.post(`/console/links/${linkId}/refunds`, {
      payment_id: fields.payment_id ?? '',
      amount: fields.amount ?? '',
      amount_format: fields.amount_format ?? '',
      reason: fields.reason ?? '',
      idempotency_key: fields.idempotency_key ?? '',
    });
    const refunds = await stack.request('GET', `/v1/payment-links/${linkId}/refunds`, { key: key.api_key });
    const after = await admin.get(path);
    const audit = await admin.get('/console/audit');

    expect(page.text).toContain('value="1.234,50"');
    expect(review.status).toBe(200);
    // Intl writes a no-break space before the euro sign.
    expect(review.text).toContain(`<h1>1.002,50\u00a0€ der Zahlung ${paymentId} erstatten?</h1>`);
    expect(review.text).toContain('Von der Zahlung bleiben 232,00\u00a0€.');
    expect(fields).toMatchObject({ amount: '1002.50', reason: 'duplicate', payment_id: paymentId });
    expect([made.status, made.headers.location]).toEqual([303, `${path}?notice=refunded`]);
    expect(refunds.body.data).toMatchObject([
      { amount: { value: '1002.50', currency: 'EUR' }, reason: 'duplicate' },
    ]);
    expect(after.text).toMatch(/Remaining<\/dt><dd>€232\.00/);
    expect(audit.text).toMatch(
      new RegExp(
        `<code>refund\\.create</code></td>\\s*<td>refund re_\\w+ of €1,002\\.50 on payment ${paymentId}</td>.*?done \\(duplicate\\)`,
        's',
      ),
    );
  });

  it('makes one refund of a confirmation sent several times at once (a double click)', async () => {
    const { linkId, path } = await paidLink('20.00');
    const review = await inLanguage(
      admin,
      `${path}/refund?${new URLSearchParams({ amount: '5.00', reason: 'requested_by_customer', detail: '' })}`,
      'en',
    );
    const fields = hiddenFields(review.text);

    const sent = await Promise.all(
      Array.from({ length: 4 }, () =>
        admin.post(`/console/links/${linkId}/refunds`, {
          payment_id: fields.payment_id ?? '',
          amount: fields.amount ?? '',
          amount_format: fields.amount_format ?? '',
          reason: fields.reason ?? '',
          idempotency_key: fields.idempotency_key ?? '',
        }),
      ),
    );

    expect(sent.map(({ status }) => status)).toEqual([303, 303, 303, 303]);
    const stored = await storedLink(linkId);
    expect(stored.refunds).toMatchObject([{ status: 'succeeded', amount: { value: '5.00' } }]);
    expect([stored.refund_reserved_minor, stored.refund_refunded_minor]).toEqual([500, 500]);
  });

  it('refuses at the form an amount past what remains, and other without words, refunding nothing', async () => {
    const { linkId, path } = await paidLink('20.00');
    const ask = (fields: Record<string, string>) =>
      admin.get(`${path}/refund?${new URLSearchParams({ detail: '', ...fields })}`);

    const [tooMuch, unreadable, wordless] = await Promise.all([
      ask({ amount: '20.01', reason: 'requested_by_customer' }),
      ask({ amount: 'twenty', reason: 'requested_by_customer' }),
      ask({ amount: '5.00', reason: 'other' }),
    ]);
    const refunds = await stack.request('GET', `/v1/payment-links/${linkId}/refunds`, { key: key.api_key });

    expect([tooMuch.status, unreadable.status, wordless.status]).toEqual([400, 400, 400]);
    expect(tooMuch.text).toContain('Type one amount of at most €20.00.');
    expect(unreadable.text).toContain('aria-invalid="true"');
    expect(wordless.text).toContain('Say the reason in your words.');
    expect(refunds.body.data).toEqual([]);
  });

  it('shows a viewer no refund form and refuses the review sent anyway', async () => {
    const { path } = await paidLink('15.00');

    const page = await viewer.get(path);
    const review = await viewer.get(`${path}/refund?amount=5.00&reason=duplicate`);

    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="reason"');
    expect(review.status).toBe(403);
  });
});
