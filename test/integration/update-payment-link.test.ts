import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRepository, paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import { markPaid } from '../../functions/domain/link-events.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { EventQueue } from '../../functions/ports/event-queue.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { applyTransition } from '../../functions/use-cases/link-transitions.ts';
import { updatePaymentLink } from '../../functions/use-cases/payment-links.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestResponse, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;
let acmeLive: IssuedApiKey;
let globex: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
  acmeLive = await stack.issueKey('acme', 'live');
  globex = await stack.issueKey('globex', 'test');
});
afterAll(() => stack.stop());

const patch = (id: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  stack.request('PATCH', `/v1/payment-links/${id}`, { key: options.key ?? acme.api_key, body, ...options });

function expectProblem(response: TestResponse, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ status, code });
}

describe('PATCH /v1/payment-links/{id}', () => {
  it('changes the given fields, keeps the absent ones, replaces metadata whole and clears with null', async () => {
    const link = await createLink(stack, acme.api_key, {
      redirect_url: 'https://shop.example/thanks',
      webhook_url: 'https://shop.example/hooks',
      metadata: { order_id: '1001', channel: 'web' },
    });

    const response = await patch(link.id, {
      description: 'Order 1001 (corrected)',
      metadata: { order_id: '1002' },
      webhook_url: null,
    });

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: link.id,
      status: 'open',
      amount: { value: '10.50', currency: 'EUR' },
      description: 'Order 1001 (corrected)',
      redirect_url: 'https://shop.example/thanks',
      webhook_url: null,
      metadata: { order_id: '1002' },
    });
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body).toEqual(response.body);
  });

  it('sets, moves and removes expires_at, and the expiry sweeper follows the stored value', async () => {
    const link = await createLink(stack, acme.api_key);
    const later = new Date(Date.now() + 3 * 86_400_000).toISOString();

    const set = await patch(link.id, { expires_at: later });
    const removed = await patch(link.id, { expires_at: null });

    expect(set.body.expires_at).toBe(later);
    expect(removed.body.expires_at).toBeNull();
    expect((await storedLink(link.id)).expires_at).toBeNull();
    const due = await linkRepository().dueForExpiry(new Date(Date.now() + 4 * 86_400_000), 1000);
    expect(due.map((entry) => entry.id)).not.toContain(link.id);
  });

  it('accepts application/merge-patch+json and refuses other media types', async () => {
    const link = await createLink(stack, acme.api_key);

    const merged = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      rawBody: JSON.stringify({ description: 'merge patch' }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    const text = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      rawBody: '{"description":"x"}',
      headers: { 'content-type': 'text/plain' },
    });

    expect(merged.status).toBe(200);
    expect(merged.body.description).toBe('merge patch');
    expectProblem(text, 415, 'unsupported_media_type');
  });

  it('validates like creation, with one pointer per bad field, and refuses a new amount', async () => {
    const link = await createLink(stack, acme.api_key);

    const response = await patch(link.id, {
      amount: { value: '99.00', currency: 'EUR' },
      description: 'x'.repeat(256),
      redirect_url: 'ftp://shop.example',
      metadata: { '': 'empty key' },
      expires_at: '2001-01-01T00:00:00Z',
      redirectUrl: 'https://typo.example',
    });

    expectProblem(response, 422, 'validation_failed');
    const pointers = response.body.errors.map((error: { pointer: string }) => error.pointer).sort();
    expect(pointers).toEqual(
      ['/amount', '/description', '/expires_at', '/metadata/', '/redirectUrl', '/redirect_url'].sort(),
    );
    expect(
      response.body.errors.find((error: { pointer: string }) => error.pointer === '/amount').detail,
    ).toMatch(/cannot change/);
    expect((await storedLink(link.id)).description).toBe('Order 1001');
  });

  it('keeps the live-mode URL rules for live links', async () => {
    const link = await createLink(stack, acmeLive.api_key);

    const response = await patch(
      link.id,
      { redirect_url: 'http://shop.example/thanks' },
      { key: acmeLive.api_key },
    );

    expectProblem(response, 422, 'validation_failed');
    expect(response.body.errors[0].pointer).toBe('/redirect_url');
  });

  it('answers 409 invalid_state for a canceled link and leaves it as it was', async () => {
    const link = await createLink(stack, acme.api_key);
    await stack.request('POST', `/v1/payment-links/${link.id}/cancel`, { key: acme.api_key });

    const response = await patch(link.id, { description: 'too late' });

    expectProblem(response, 409, 'invalid_state');
    expect(await storedLink(link.id)).toMatchObject({ status: 'canceled', description: 'Order 1001' });
  });

  it('answers 409 for a link whose expiry has passed, so moving expires_at never revives it', async () => {
    // The API refuses past expiries, so the overdue link is written directly.
    const overdue = newPaymentLink(
      { account: 'acme', mode: 'test' },
      { amount: { value: '7.00', currency: 'EUR' }, expires_at: new Date(Date.now() - 60_000).toISOString() },
      new Date(Date.now() - 3_600_000),
    );
    await linkRepository().create(overdue);

    const response = await patch(overdue.id, { expires_at: new Date(Date.now() + 86_400_000).toISOString() });

    expectProblem(response, 409, 'invalid_state');
    expect((await storedLink(overdue.id)).expires_at).toBe(overdue.expires_at);
  });

  it('answers 404 for another account, the other mode, or an unknown id', async () => {
    const link = await createLink(stack, acme.api_key);

    const foreign = await patch(link.id, { description: 'x' }, { key: globex.api_key });
    const otherMode = await patch(link.id, { description: 'x' }, { key: acmeLive.api_key });
    const unknown = await patch('pl_0000000000000000000000', { description: 'x' });

    expectProblem(foreign, 404, 'not_found');
    expectProblem(otherMode, 404, 'not_found');
    expectProblem(unknown, 404, 'not_found');
  });

  it('ends the open PSP session when what the buyer sees changes, so the next visit opens a fresh one', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const first = (await storedLink(link.id)).psp_session;

    await patch(link.id, { description: 'Order 1001, two items' });
    const afterChange = await storedLink(link.id);
    await navigate(link.checkout_url);
    const second = (await storedLink(link.id)).psp_session;

    expect(afterChange.psp_session).toBeNull();
    expect((await sandboxSessionStore().get(first?.id as string))?.status).toBe('expired');
    expect(second?.id).toBeDefined();
    expect(second?.id).not.toBe(first?.id);
  });

  it('keeps the PSP session when only what the buyer never sees changes (metadata, webhook_url)', async () => {
    const link = await createLink(stack, acme.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;

    await patch(link.id, { metadata: { note: 'internal' }, webhook_url: 'https://shop.example/new-hooks' });

    expect((await storedLink(link.id)).psp_session).toEqual(session);
    expect((await sandboxSessionStore().get(session?.id as string))?.status).toBe('open');
  });

  it('ignores Idempotency-Key: PATCH states its result, so a repeat with another body applies that body', async () => {
    const link = await createLink(stack, acme.api_key);
    const headers = { 'idempotency-key': 'patch-1' };

    const first = await patch(link.id, { description: 'first' }, { headers });
    const second = await patch(link.id, { description: 'second' }, { headers });

    expect(first.body.description).toBe('first');
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.description).toBe('second');
  });
});

describe('PATCH racing a payment against the embedded DynamoDB', () => {
  /** Counts what was published, so a test can check that the payment kept its one event. */
  const recordingQueue = (): EventQueue & { published: string[] } => {
    const published: string[] = [];
    return { published, publish: async (event) => void published.push(event.id) };
  };

  it('never loses the payment nor reopens a paid link: the update lands before it, or is refused after it', async () => {
    for (let round = 0; round < 8; round++) {
      const link = await createLink(stack, acme.api_key);
      const queue = recordingQueue();
      const deps = { links: linkRepository(), now: () => new Date() };
      const load = async () => (await linkRepository().get(link.id, 'test')) as PaymentLink;

      const [updated, paid] = await Promise.allSettled([
        updatePaymentLink(
          {
            ...deps,
            payments: paymentRepository(),
            pspSessions: { expireSession: async () => 'refused' as const },
          },
          { account: 'acme', mode: 'test' },
          link.id,
          { description: `round ${round}` },
        ),
        applyTransition({ ...deps, queue, checkoutBase: stack.checkoutBase }, load, (current, now) =>
          markPaid(
            current,
            {
              id: 'pay_x',
              connection_id: 'pc_x',
              provider: 'sandbox',
              reference: `race_${round}`,
              amount: current.amount!,
            },
            now,
          ),
        ),
      ]);

      const stored = await storedLink(link.id);
      expect(paid.status).toBe('fulfilled');
      expect(stored.status).toBe('paid');
      expect(stored.payment).toEqual({
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'sandbox',
        reference: `race_${round}`,
        amount: link.amount,
      });
      expect(stored.event_ids).toHaveLength(1);
      expect(queue.published).toEqual(stored.event_ids);
      if (updated.status === 'fulfilled') expect(stored.description).toBe(`round ${round}`);
      else {
        expect(updated.reason).toMatchObject({ code: 'invalid_state' });
        expect(stored.description).toBe('Order 1001');
      }
    }
  });
});
