import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoRefundLedger } from '../../functions/adapters/dynamodb/refund-ledger.ts';
import { config } from '../../functions/config.ts';
import { eventQueue, linkRepository, paymentRepository, refundLedger } from '../../functions/dependencies.ts';
import { FIRST_CHECK_AFTER_MS } from '../../functions/domain/payment.ts';
import { paymentRefunds } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { checkPendingRefunds, createRefund, refundIdFor } from '../../functions/use-cases/refunds.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestResponse, type TestStack } from '../support/test-stack.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

let stack: TestStack;
let receiver: Receiver;
let acme: IssuedApiKey;
let globex: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  receiver = await startReceiver();
  acme = await stack.issueKey('acme', 'test');
  globex = await stack.issueKey('globex', 'test');
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A link the buyer paid in the sandbox: checkout page, then "Pay" on the sandbox's page. */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON resource
async function paidLink(value = '10.00', body: Record<string, unknown> = {}): Promise<any> {
  const link = await createLink(stack, acme.api_key, { amount: { value, currency: 'EUR' }, ...body });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
  await eventually(async () => (await storedLink(link.id)).status === 'paid');
  return link;
}

const refundDeps = () => ({
  links: linkRepository(),
  ledger: refundLedger(),
  payments: paymentRepository(),
  queue: eventQueue(),
  refunds: paymentRefunds(),
  now: () => new Date(),
  checkoutBase: config().CHECKOUT_BASE,
});

const refund = (linkId: string, body?: unknown, headers: Record<string, string> = {}, key = acme.api_key) =>
  stack.request('POST', `/v1/payment-links/${linkId}/refunds`, { key, body, headers });

function expectProblem(response: TestResponse, status: number, code: string, pointer?: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.body).toMatchObject({ status, code });
  if (pointer)
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual([pointer]);
}

describe('POST /v1/payment-links/{id}/refunds', () => {
  it('refunds part, then the rest by default, through the sandbox at once; amount_refunded follows', async () => {
    const link = await paidLink('10.00');

    const part = await refund(link.id, { amount: { value: '4', currency: 'EUR' } });
    const rest = await refund(link.id);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });

    expect(part.status).toBe(201);
    expect(part.body).toMatchObject({
      object: 'refund',
      payment_link_id: link.id,
      payment_id: read.body.payment.id,
      status: 'succeeded',
      amount: { value: '4', currency: 'EUR' },
      failure: null,
    });
    expect(part.body.id).toMatch(/^re_[0-9A-Za-z]{22,}$/);
    expect(part.body.provider_reference).toMatch(/^sbre_/);
    expect(rest.body).toMatchObject({ status: 'succeeded', amount: { value: '6.00', currency: 'EUR' } });
    expect(read.body).toMatchObject({ status: 'paid', amount_refunded: { value: '10.00', currency: 'EUR' } });
  });

  it('refuses more than remains, another currency and too many decimals with a pointer, and a fully refunded link', async () => {
    const link = await paidLink('10.00');
    await refund(link.id, { amount: { value: '9.50', currency: 'EUR' } });

    expectProblem(
      await refund(link.id, { amount: { value: '0.51', currency: 'EUR' } }),
      422,
      'validation_failed',
      '/amount/value',
    );
    expectProblem(
      await refund(link.id, { amount: { value: '0.10', currency: 'USD' } }),
      422,
      'validation_failed',
      '/amount/currency',
    );
    expectProblem(
      await refund(link.id, { amount: { value: '0.105', currency: 'EUR' } }),
      422,
      'validation_failed',
      '/amount/value',
    );
    expectProblem(
      await refund(link.id, { amount: { value: '1' } }),
      422,
      'validation_failed',
      '/amount/currency',
    );
    await refund(link.id);
    expectProblem(await refund(link.id), 422, 'validation_failed', '/amount');
  });

  it('answers 409 invalid_state for a link that is not paid, and 404 for another tenant', async () => {
    const open = await createLink(stack, acme.api_key);
    const paid = await paidLink();

    expectProblem(await refund(open.id), 409, 'invalid_state');
    expectProblem(await refund(paid.id, undefined, {}, globex.api_key), 404, 'not_found');
    expect(
      (await stack.request('GET', `/v1/payment-links/${paid.id}/refunds`, { key: globex.api_key })).status,
    ).toBe(404);
  });

  it('never refunds past the paid amount, whatever the concurrency: 25 parallel refunds of 1.00 on 10.00', async () => {
    const link = await paidLink('10.00');

    const responses = await Promise.all(
      Array.from({ length: 25 }, () => refund(link.id, { amount: { value: '1.00', currency: 'EUR' } })),
    );

    const created = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status !== 201);
    expect(created).toHaveLength(10);
    for (const response of refused) expectProblem(response, 422, 'validation_failed', '/amount/value');
    const stored = await storedLink(link.id);
    expect(stored.refunds).toHaveLength(10);
    expect(stored.refund_reserved_minor).toBe(1000);
    expect(stored.refund_refunded_minor).toBe(1000);
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body.amount_refunded.value).toBe('10.00');
  });

  it('replays the first answer for the same Idempotency-Key: one refund, not two', async () => {
    const link = await paidLink('10.00');
    const headers = { 'idempotency-key': `refund-${link.id}` };

    const first = await refund(link.id, { amount: { value: '2', currency: 'EUR' } }, headers);
    const again = await refund(link.id, { amount: { value: '2', currency: 'EUR' } }, headers);

    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect((await storedLink(link.id)).refunds).toHaveLength(1);
  });
});

describe('a refund the PSP accepted is never sent twice (docs/webhooks.md#refunds)', () => {
  it('answers 201 with the pending refund when its outcome cannot be stored, keeps the Idempotency-Key, and the sweeper settles it', async () => {
    const link = await paidLink('10.00');
    const headers = { 'idempotency-key': `store-down-${link.id}` };
    vi.spyOn(DynamoRefundLedger.prototype, 'commitSettlement').mockRejectedValueOnce(
      new Error('store unavailable'),
    );

    const first = await refund(link.id, { amount: { value: '4.00', currency: 'EUR' } }, headers);
    const retry = await refund(link.id, { amount: { value: '4.00', currency: 'EUR' } }, headers);

    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'pending', amount: { value: '4.00', currency: 'EUR' } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    const stored = await storedLink(link.id);
    expect(stored.refunds).toHaveLength(1);
    expect(stored.refund_reserved_minor).toBe(400);

    await checkPendingRefunds(
      {
        ...refundDeps(),
        now: () => new Date(Date.parse(first.body.created_at) + FIRST_CHECK_AFTER_MS + 1_000),
      },
      100,
    );
    const settled = await storedLink(link.id);
    expect(settled.refunds).toMatchObject([{ id: first.body.id, status: 'succeeded' }]);
    expect(settled.refund_refunded_minor).toBe(400);
  });

  it('a request that runs again with the same Idempotency-Key (its first answer lost) answers the refund it made', async () => {
    const link = await paidLink('10.00');
    const principal = { account: 'acme', mode: 'test' as const };
    const refundId = refundIdFor(principal, link.id, 'lost-answer');
    const deps = refundDeps();

    const first = await createRefund(deps, principal, link.id, { value: '3.00', currency: 'EUR' }, refundId);
    const again = await createRefund(deps, principal, link.id, { value: '3.00', currency: 'EUR' }, refundId);

    expect(again).toEqual(first);
    expect(first.id).toBe(refundIdFor(principal, link.id, 'lost-answer'));
    expect(refundIdFor(principal, link.id, 'another key')).not.toBe(first.id);
    expect(refundIdFor({ account: 'globex', mode: 'test' }, link.id, 'lost-answer')).not.toBe(first.id);
    const stored = await storedLink(link.id);
    expect(stored.refunds).toHaveLength(1);
    expect(stored.refund_refunded_minor).toBe(300);
  });

  it('goes on with a reservation whose write landed although its answer was lost', async () => {
    const link = await paidLink('10.00');
    const reserve = DynamoRefundLedger.prototype.reserve;
    vi.spyOn(DynamoRefundLedger.prototype, 'reserve').mockImplementationOnce(async function (
      this: DynamoRefundLedger,
      ...args
    ) {
      await reserve.apply(this, args);
      throw new Error('socket hang up');
    });

    const created = await refund(link.id, { amount: { value: '5.00', currency: 'EUR' } });

    expect(created.status).toBe(201);
    expect(created.body.status).toBe('succeeded');
    expect((await storedLink(link.id)).refunds).toHaveLength(1);
  });

  it('answers the refund as stored when the settlement landed but its answer was lost', async () => {
    const link = await paidLink('10.00');
    const commitSettlement = DynamoRefundLedger.prototype.commitSettlement;
    vi.spyOn(DynamoRefundLedger.prototype, 'commitSettlement').mockImplementationOnce(async function (
      this: DynamoRefundLedger,
      ...args
    ) {
      await commitSettlement.apply(this, args);
      throw new Error('socket hang up');
    });

    const created = await refund(link.id, { amount: { value: '5.00', currency: 'EUR' } });

    expect(created.status).toBe(201);
    // The sandbox refunded it, and the store says so: the merchant is not told `pending` for good (a replay of
    // its Idempotency-Key answers the same).
    expect((await storedLink(link.id)).refunds).toMatchObject([{ id: created.body.id, status: 'succeeded' }]);
    expect(created.body.status).toBe('succeeded');
  });
});

describe('GET /v1/payment-links/{id}/refunds', () => {
  it('lists the refunds newest first', async () => {
    const link = await paidLink('10.00');
    const first = await refund(link.id, { amount: { value: '1', currency: 'EUR' } });
    const second = await refund(link.id, { amount: { value: '2', currency: 'EUR' } });

    const list = await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: acme.api_key });

    expect(list.status).toBe(200);
    expect(list.body.data.map((entry: { id: string }) => entry.id)).toEqual([second.body.id, first.body.id]);
  });
});

describe('refund webhooks', () => {
  it('sends refund.succeeded with the refund and the link, signed for standardwebhooks', async () => {
    const link = await paidLink('10.00', { webhook_url: `${receiver.url}/hooks` });
    await eventually(async () => receiver.received.some((hook) => hook.body.includes(link.id)));

    const created = await refund(link.id, { amount: { value: '3', currency: 'EUR' } });

    const hook = await eventually(async () =>
      receiver.received.find((received) => received.body.includes(created.body.id)),
    );
    const payload = new Webhook(acme.webhook_secret).verify(
      hook.body,
      hook.headers as Record<string, string>,
    ) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('refund.succeeded');
    expect(payload.data).toMatchObject({
      id: created.body.id,
      status: 'succeeded',
      amount: { value: '3', currency: 'EUR' },
      payment_link: { id: link.id, status: 'paid', amount_refunded: { value: '3.00', currency: 'EUR' } },
    });
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: acme.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual([
      'payment_link.paid',
      'refund.succeeded',
    ]);
  });
});
