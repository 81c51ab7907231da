import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import { BUILT_IN_SANDBOX_ID } from '../../functions/domain/connection.ts';
import { cancel } from '../../functions/domain/link-events.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

/** An open link with a sandbox session the buyer has paid (without the sandbox notifying us yet). */
async function paidSandboxSession() {
  const link = await createLink(stack, acme.api_key);
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  if (!session) throw new Error('no session');
  await sandboxSessionStore().complete(session.id, `sbpay_test_${session.id}`, new Date());
  return { link, session };
}

const post = (
  notification: { rawBody: string; headers: Record<string, string> },
  provider = 'sandbox',
  connectionId = BUILT_IN_SANDBOX_ID,
) =>
  stack.request('POST', `/psp/${provider}/notifications/${connectionId}`, {
    rawBody: notification.rawBody,
    headers: notification.headers,
  });

describe('POST /psp/sandbox/notifications/{connection_id}', () => {
  it('records a confirmed payment: paid, paid_at, payment {provider, reference}, one event', async () => {
    const { link, session } = await paidSandboxSession();
    const response = await post(sandboxNotification({ session_id: session.id, link_id: link.id }));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ received: true, outcome: 'paid' });

    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: { provider: 'sandbox', reference: `sbpay_test_${session.id}` },
    });
    expect(Date.parse(read.body.paid_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await storedLink(link.id)).event_ids).toHaveLength(1);
  });

  it('makes exactly one transition and one event when the same notification arrives 10 times at once', async () => {
    const { link, session } = await paidSandboxSession();
    const notification = sandboxNotification({ session_id: session.id, link_id: link.id });
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(notification)));

    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
    const outcomes = responses.map((response) => response.body.outcome);
    expect(outcomes.filter((outcome) => outcome === 'paid')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'already_paid')).toHaveLength(9);
    const stored = await storedLink(link.id);
    expect(stored.status).toBe('paid');
    expect(stored.event_ids).toHaveLength(1);
  });

  it('answers 200 to a repeat after the payment is recorded, so the PSP stops retrying, and changes nothing', async () => {
    const { link, session } = await paidSandboxSession();
    const notification = sandboxNotification({ session_id: session.id, link_id: link.id });
    await post(notification);
    const before = await storedLink(link.id);
    const repeat = await post(notification);
    expect(repeat.status).toBe(200);
    expect(repeat.body.outcome).toBe('already_paid');
    expect(await storedLink(link.id)).toEqual(before);
  });

  it('rejects a forged signature, a tampered body and a replayed old notification with 400, changing nothing', async () => {
    const { link, session } = await paidSandboxSession();
    const before = await storedLink(link.id);
    const forged = sandboxNotification(
      { session_id: session.id, link_id: link.id },
      { secret: 'not-the-secret' },
    );
    const genuine = sandboxNotification({ session_id: session.id, link_id: link.id });
    const tampered = { ...genuine, rawBody: genuine.rawBody.replace('"mode":"test"', '"mode":"test" ') };
    const stale = sandboxNotification(
      { session_id: session.id, link_id: link.id },
      { timestamp: Math.floor(Date.now() / 1000) - 3600 },
    );
    const unsigned = { rawBody: genuine.rawBody, headers: { 'content-type': 'application/json' } };
    for (const attempt of [forged, tampered, stale, unsigned]) {
      const response = await post(attempt);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.body.code).toBe('invalid_notification');
    }
    expect(await storedLink(link.id)).toEqual(before);
  });

  it('ignores (200) a genuine notification whose session the PSP reports unpaid: the body alone is never trusted', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    const response = await post(sandboxNotification({ session_id: session.id, link_id: link.id }));
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('ignored');
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('rejects notifications about unknown sessions, for an unknown connection or provider, with one answer: 400', async () => {
    const { link, session } = await paidSandboxSession();
    const other = await createLink(stack, acme.api_key);
    const unknownSession = await post(
      sandboxNotification({ session_id: 'sbcs_000000000000000000000000', link_id: other.id }),
    );
    expect(unknownSession.status).toBe(400);
    // The session's own record names its link: a body that names another link changes nothing there.
    const mismatch = await post(sandboxNotification({ session_id: session.id, link_id: other.id }));
    expect(mismatch.status).toBe(200);
    expect((await storedLink(other.id)).status).toBe('open');
    const answers = await Promise.all([
      post(sandboxNotification({ session_id: session.id, link_id: link.id }), 'acmepay'),
      post(sandboxNotification({ session_id: session.id, link_id: link.id }), 'stripe'),
      post(
        sandboxNotification({ session_id: session.id, link_id: link.id }),
        'sandbox',
        'pc_000000000000000000000000',
      ),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400]);
    expect(new Set(answers.map((answer) => answer.body.detail)).size).toBe(1);
    const notJson = await post({ rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(notJson.status).toBe(400);
  });

  it('answers a Stripe-shaped notification about a link whose merchant has no Stripe account like any forgery: 400', async () => {
    const link = await createLink(stack, acme.api_key);
    const forged = await post(
      {
        rawBody: JSON.stringify({
          type: 'checkout.session.completed',
          data: {
            object: {
              object: 'checkout.session',
              id: 'cs_x',
              client_reference_id: link.id,
              metadata: { mode: 'test' },
            },
          },
        }),
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      },
      'stripe',
    );
    expect(forged.status).toBe(400);
    expect(forged.body.detail).not.toMatch(/stripe|credential/i);
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('answers every refused notification identically, whether or not what it names exists', async () => {
    const { link, session } = await paidSandboxSession();
    const refused = await Promise.all([
      post(sandboxNotification({ session_id: 'sbcs_000000000000000000000000', link_id: link.id })),
      post(sandboxNotification({ session_id: session.id, link_id: link.id }, { secret: 'forged' })),
      post(
        sandboxNotification({ session_id: session.id, link_id: link.id }),
        'sandbox',
        'pc_000000000000000000000000',
      ),
      post(sandboxNotification({ session_id: session.id, link_id: link.id }), 'stripe'),
      post({ rawBody: 'hello', headers: { 'content-type': 'text/plain' } }),
    ]);
    const answers = refused.map(({ status, body }) => ({ status, ...body, request_id: undefined }));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(answers[0]).toMatchObject({ status: 400, code: 'invalid_notification' });
  });

  it('refuses a body over 256 KiB with 413 before reading it', async () => {
    const { link, session } = await paidSandboxSession();
    const genuine = sandboxNotification({ session_id: session.id, link_id: link.id });
    const padded = { ...genuine, rawBody: genuine.rawBody + ' '.repeat(256 * 1024) };
    const response = await post(padded);
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('never lets the sandbox pay a live-mode link', async () => {
    const live = await stack.issueKey('acme', 'live');
    const link = await createLink(stack, live.api_key, { redirect_url: null });
    const response = await post(
      sandboxNotification({ session_id: 'sbcs_000000000000000000000000', link_id: link.id, mode: 'live' }),
    );
    expect(response.status).toBe(400);
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('records a payment confirmed after the link was canceled meanwhile as paid (the money moved)', async () => {
    const { link, session } = await paidSandboxSession();
    const open = await storedLink(link.id);
    const canceled = cancel(open, new Date());
    if (!canceled) throw new Error('not canceled');
    await linkRepository().commit(canceled);

    const response = await post(sandboxNotification({ session_id: session.id, link_id: link.id }));
    expect(response.status).toBe(200);
    const stored = await storedLink(link.id);
    expect(stored.status).toBe('paid');
    expect(stored.event_ids).toHaveLength(2);
  });
});
