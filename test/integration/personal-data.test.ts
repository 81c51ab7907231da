import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventDataOf, storedEventData } from '../../functions/adapters/dynamodb/event-data.ts';
import { keys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  accountSettingsRepository,
  paymentRepository,
  personalDataStore,
} from '../../functions/dependencies.ts';
import type { Payment } from '../../functions/domain/payment.ts';
import { erasedPayment } from '../../functions/domain/personal-data.ts';
import { BUYER_COOKIE } from '../../functions/http/checkout/buyer-cookie.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { sweepRetention } from '../../functions/use-cases/personal-data.ts';
import { seedPayment, storedPayments } from '../support/books.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import {
  httpRequest,
  NAVIGATION_HEADERS,
  navigate,
  type PageResponse,
  postOurForm,
} from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually } from '../support/webhooks.ts';

// Request lines are INFO (the suite runs at WARN): set before the logger is built, as test/integration/logging.test.ts.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
});

let stack: TestStack;
let acme: IssuedApiKey;
let globex: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('pii-acme', 'test');
  globex = await stack.issueKey('pii-globex', 'test');
});
afterAll(() => stack.stop());

const EMAIL = 'ada.buyer@example.com';
const REFERENCE = 'customer-7781';
const DAY = 86_400_000;

/**
 * A link paid in the sandbox whose payment holds a buyer and a reference (as the checkout forms will record
 * them), refunded in part, with its `payment_link.paid` event carrying the buyer as the paid webhook will.
 */
async function paidWithBuyer(): Promise<{ linkId: string; payment: Payment; eventId: string }> {
  const link = await createLink(stack, acme.api_key, { amount: { value: '30.00', currency: 'EUR' } });
  await navigate(link.checkout_url);
  const session = (await storedLink(link.id)).psp_session;
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });
  await eventually(async () => (await storedLink(link.id)).status === 'paid');
  const stored = await storedLink(link.id);
  const before = (await storedPayments().get(link.id, 'test', stored.payment?.id as string)) as Payment;
  const payment: Payment = {
    ...before,
    client_reference_id: REFERENCE,
    buyer: {
      email: EMAIL,
      name: 'Ada Buyer',
      billing_address: { line1: 'Main 1', city: 'Delft', country: 'NL' },
    },
    version: before.version + 1,
  };
  await storedPayments().save(payment, before);
  const refund = await stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
    key: acme.api_key,
    body: { amount: { value: '5.00', currency: 'EUR' } },
  });
  expect(refund.status).toBe(201);
  const eventId = stored.event_ids[0] as string;
  const event = await documentClient().send(
    new GetCommand({ TableName: config().TABLE_NAME, Key: keys.event(eventId, 'test') }),
  );
  const data = eventDataOf(event.Item?.data) as { payment: Record<string, unknown> };
  await documentClient().send(
    new UpdateCommand({
      TableName: config().TABLE_NAME,
      Key: keys.event(eventId, 'test'),
      UpdateExpression: 'SET #data = :data',
      ExpressionAttributeNames: { '#data': 'data' },
      ExpressionAttributeValues: {
        ':data': storedEventData({ ...data, payment: { ...data.payment, buyer: payment.buyer } }),
      },
    }),
  );
  return { linkId: link.id, payment, eventId };
}

const erase = (id: string, key = acme.api_key) =>
  stack.request('DELETE', `/v1/payments/${id}/buyer`, { key });

describe('DELETE /v1/payments/{id}/buyer', () => {
  it('erases the buyer everywhere: the payment, its reference index, its refunds and the stored events', async () => {
    const { linkId, payment, eventId } = await paidWithBuyer();
    const listedBefore = await stack.request('GET', `/v1/payments?client_reference_id=${REFERENCE}`, {
      key: acme.api_key,
    });
    expect(listedBefore.body.data.map((entry: { id: string }) => entry.id)).toEqual([payment.id]);
    expect(listedBefore.body.data[0].buyer).toMatchObject({ email: EMAIL });

    const response = await erase(payment.id);

    expect(response.status).toBe(200);
    expectDocumented('delete', '/v1/payments/{id}/buyer', response);
    expect(response.body).toMatchObject({ object: 'buyer_erasure', payment_id: payment.id });
    const listed = await stack.request('GET', `/v1/payments?link_id=${linkId}`, { key: acme.api_key });
    expect(listed.body.data[0]).toMatchObject({
      id: payment.id,
      status: 'succeeded',
      client_reference_id: null,
      buyer: { erased_at: response.body.erased_at },
    });
    for (const path of ['/v1/payments', '/v1/refunds']) {
      const byReference = await stack.request('GET', `${path}?client_reference_id=${REFERENCE}`, {
        key: acme.api_key,
      });
      expect(byReference.body.data).toEqual([]);
    }
    const refunds = await stack.request('GET', `/v1/refunds?link_id=${linkId}`, { key: acme.api_key });
    expect(refunds.body.data).toEqual([expect.objectContaining({ client_reference_id: null })]);
    const event = await stack.request('GET', `/v1/events/${eventId}`, { key: acme.api_key });
    expect(JSON.stringify(event.body)).not.toContain(EMAIL);
    expect(event.body.data.payment.buyer).toEqual({ erased_at: response.body.erased_at });
  });

  it('answers the first erasure again when repeated, and nothing for another account or an unknown id', async () => {
    const { payment } = await paidWithBuyer();
    const first = await erase(payment.id);
    const again = await erase(payment.id);
    const other = await erase(payment.id, globex.api_key);
    const unknown = await erase('pay_unknown00000000000000000000');
    const malformed = await erase('not-a-payment');

    expect(again.body.erased_at).toBe(first.body.erased_at);
    expect(other.status).toBe(404);
    expectDocumented('delete', '/v1/payments/{id}/buyer', other);
    expect(unknown.status).toBe(404);
    expect(malformed.status).toBe(404);
  });

  it('never writes the buyer or the reference to the logs', async () => {
    const output = await capturedOutput(async () => {
      const { payment } = await paidWithBuyer();
      await stack.request('GET', `/v1/payments?client_reference_id=${REFERENCE}`, { key: acme.api_key });
      await stack.request('GET', `/v1/payments?client_reference_id=${REFERENCE}&status=bad`, {
        key: acme.api_key,
      });
      await erase(payment.id);
    });
    expect(output).toContain('buyer details erased');
    expect(output).not.toContain(EMAIL);
    expect(output).not.toContain(REFERENCE);
    expect(output).not.toContain('Ada Buyer');
  });
});

/**
 * A buyer's browser on a checkout page: it keeps the cookies the page sets (the buyer cookie, the references'), as
 * a browser does. Every browser here comes from one address: one client for the session budgets (`opened_by`).
 */
function browser() {
  const cookies = new Map<string, string>();
  const keep = (page: PageResponse) => {
    for (const set of ([] as string[]).concat(page.headers['set-cookie'] ?? [])) {
      const [name, value] = (set.split(';')[0] ?? '').split('=') as [string, string];
      cookies.set(name, value);
    }
    return page;
  };
  const cookie = () => ({ cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') });
  return {
    /** The payment the buyer cookie names: the buyer's last attempt. */
    get payment() {
      return cookies.get(BUYER_COOKIE) as string;
    },
    visit: async (url: string) =>
      keep(await httpRequest(url, { headers: { ...NAVIGATION_HEADERS, ...cookie() } })),
    post: async (url: string, fields: Record<string, string>) =>
      keep(await postOurForm(url, fields, cookie())),
  };
}

/** The buyer's attempt, once the sandbox recorded what they did on its page (`pay` or `decline`). */
async function settleAttempt(linkId: string, paymentId: string, action: 'pay' | 'decline') {
  const attempt = await storedPayments().get(linkId, 'test', paymentId);
  await httpRequest(`${stack.baseUrl}/sandbox/checkout/${attempt?.session_id}/${action}`, { method: 'POST' });
  const status = action === 'pay' ? 'succeeded' : 'failed';
  await eventually(async () => (await storedPayments().get(linkId, 'test', paymentId))?.status === status, {
    what: `payment ${paymentId} ${status}`,
  });
}

/** Every stored event of the link, with its deliveries, as the API gives them. */
async function eventsOfLink(linkId: string) {
  const { body } = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: acme.api_key });
  const events = await Promise.all(
    body.data.map((event: { id: string }) =>
      stack.request('GET', `/v1/events/${event.id}`, { key: acme.api_key }),
    ),
  );
  return events.map((event) => event.body as { type: string; data: { payment?: { id: string } } });
}

describe("DELETE /v1/payments/{id}/buyer, a buyer's attempts", () => {
  const QUESTION = { key: 'student', label: 'Student id', type: 'text' };

  it('erases the attempt the buyer declined in the same browser before paying, and no other buyer behind their address', async () => {
    const link = await createLink(stack, acme.api_key, {
      reusable: true,
      collect: { email: 'required' },
      custom_fields: [QUESTION],
    });
    const answers = (email: string, student: string) => ({ answers: '1', email, custom_student: student });
    const buyer = browser();
    expect((await buyer.post(link.checkout_url, answers('declined@example.com', 'S-DECLINED'))).status).toBe(
      303,
    );
    const declined = buyer.payment;
    await settleAttempt(link.id, declined, 'decline');
    await buyer.visit(`${link.checkout_url}?canceled=1`);
    expect((await buyer.post(link.checkout_url, answers('paid@example.com', 'S-PAID'))).status).toBe(303);
    const paid = buyer.payment;
    await settleAttempt(link.id, paid, 'pay');
    // Another buyer from the same address, in their own browser: the same client for the session budgets.
    const neighbour = browser();
    await neighbour.post(link.checkout_url, answers('neighbour@example.com', 'S-NEIGHBOUR'));
    await settleAttempt(link.id, neighbour.payment, 'decline');
    const before = await storedPayments().listOfLink(link.id, 'test');
    expect(new Set(before.map((payment) => payment.opened_by)).size).toBe(1);
    expect(JSON.stringify(await eventsOfLink(link.id))).toContain('S-DECLINED');

    const response = await erase(paid);

    expect(response.status).toBe(200);
    expectDocumented('delete', '/v1/payments/{id}/buyer', response);
    expect(response.body.payment_ids).toEqual([paid, declined]);
    const after = new Map(
      (await storedPayments().listOfLink(link.id, 'test')).map((payment) => [payment.id, payment]),
    );
    for (const id of [paid, declined]) {
      expect(after.get(id)?.buyer).toEqual({ erased_at: response.body.erased_at });
      expect(after.get(id)?.custom_fields).toBeUndefined();
    }
    expect(after.get(neighbour.payment)?.buyer).toEqual({ email: 'neighbour@example.com' });
    const events = await eventsOfLink(link.id);
    expect(events.filter((event) => event.type === 'payment_link.payment_failed')).toHaveLength(2);
    for (const text of ['declined@example.com', 'S-DECLINED', 'paid@example.com', 'S-PAID']) {
      expect(JSON.stringify(events)).not.toContain(text);
    }
    expect(JSON.stringify(events)).toContain('S-NEIGHBOUR');
  });

  it('erases every attempt on the link with the same reference, from any browser, and leaves other links alone', async () => {
    const reference = `student-${Date.now()}`;
    const link = await createLink(stack, acme.api_key, { reusable: true });
    const elsewhere = await seedPayment('pii-acme', {
      created_at: new Date().toISOString(),
      client_reference_id: reference,
    });
    const first = browser();
    await first.visit(`${link.checkout_url}?client_reference_id=${reference}`);
    await settleAttempt(link.id, first.payment, 'decline');
    const second = browser();
    await second.visit(`${link.checkout_url}?client_reference_id=${reference}`);
    await settleAttempt(link.id, second.payment, 'pay');
    const other = browser();
    await other.visit(`${link.checkout_url}?client_reference_id=someone-else`);
    const byReference = async () =>
      (
        await stack.request('GET', `/v1/payments?client_reference_id=${reference}`, { key: acme.api_key })
      ).body.data.map((payment: { id: string }) => payment.id);
    expect((await byReference()).sort()).toEqual([first.payment, second.payment, elsewhere.id].sort());

    const response = await erase(second.payment);

    expect(response.body.payment_ids).toEqual([second.payment, first.payment]);
    expect(await byReference()).toEqual([elsewhere.id]);
    const events = await eventsOfLink(link.id);
    const failed = events.find((event) => event.type === 'payment_link.payment_failed');
    expect(failed?.data.payment?.id).toBe(first.payment);
    expect(JSON.stringify(events)).not.toContain(reference);
    expect((await storedPayments().get(link.id, 'test', other.payment))?.client_reference_id).toBe(
      'someone-else',
    );
    // Repeated: the first erasure's time; the attempts it erased hold nothing left to erase.
    const again = await erase(second.payment);
    expect(again.body).toEqual({ ...response.body, payment_ids: [second.payment] });
  });

  it("erases again the copies of the link's payments erased before, should an erasure have stopped half-way", async () => {
    const reference = `half-way-${Date.now()}`;
    const link = await createLink(stack, acme.api_key, { reusable: true });
    const first = browser();
    await first.visit(`${link.checkout_url}?client_reference_id=${reference}`);
    await settleAttempt(link.id, first.payment, 'decline');
    const second = browser();
    await second.visit(`${link.checkout_url}?client_reference_id=${reference}`);
    await settleAttempt(link.id, second.payment, 'pay');
    // A run that erased the declined attempt's payment and stopped before its copies.
    const declined = (await storedPayments().get(link.id, 'test', first.payment)) as Payment;
    await storedPayments().save(erasedPayment(declined, new Date()) as Payment, declined);
    expect(JSON.stringify(await eventsOfLink(link.id))).toContain(reference);

    const response = await erase(second.payment);

    expect(response.body.payment_ids).toEqual([second.payment]);
    expect(JSON.stringify(await eventsOfLink(link.id))).not.toContain(reference);
  });
});

describe('retention', () => {
  const sweep = (now = new Date()) =>
    sweepRetention(
      {
        payments: paymentRepository(),
        personalData: personalDataStore(),
        settings: accountSettingsRepository(),
        now: () => now,
      },
      100,
    );
  const buyerOf = async (payment: Payment) =>
    (await storedPayments().get(payment.link_id, 'test', payment.id))?.buyer;
  const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

  it("erases the buyer once the account's period has passed since the payment, 400 days by default", async () => {
    const old = await seedPayment('retention-default', { created_at: ago(401), buyer: { email: EMAIL } });
    const young = await seedPayment('retention-default', { created_at: ago(100), buyer: { email: EMAIL } });
    const pending = await seedPayment('retention-default', {
      created_at: ago(500),
      status: 'pending',
      next_check_at: new Date(Date.now() + DAY).toISOString(),
      client_reference_id: REFERENCE,
    });

    await sweep();

    expect(await buyerOf(old)).toEqual({ erased_at: expect.any(String) });
    expect(await buyerOf(young)).toEqual({ email: EMAIL });
    expect((await storedPayments().get(young.link_id, 'test', young.id))?.retention_check_at).toBe(
      new Date(Date.parse(young.created_at) + 400 * DAY).toISOString(),
    );
    // A payment still pending is the check sweeper's until it settles.
    expect((await storedPayments().get(pending.link_id, 'test', pending.id))?.client_reference_id).toBe(
      REFERENCE,
    );
    // At the time rescheduled, the young payment goes too.
    await sweep(new Date(Date.parse(young.created_at) + 400 * DAY + 1000));
    expect(await buyerOf(young)).toEqual({ erased_at: expect.any(String) });
  });

  it('follows the period the merchant sets through the API', async () => {
    const key = await stack.issueKey('retention-short', 'test');
    const defaults = await stack.request('GET', '/v1/account-settings', { key: key.api_key });
    const tooShort = await stack.request('PUT', '/v1/account-settings', {
      key: key.api_key,
      body: { personal_data_retention_days: 10 },
    });
    const set = await stack.request('PUT', '/v1/account-settings', {
      key: key.api_key,
      body: { personal_data_retention_days: 60 },
    });
    const read = await stack.request('GET', '/v1/account-settings', { key: key.api_key });
    const due = await seedPayment('retention-short', { created_at: ago(61), client_reference_id: REFERENCE });
    const kept = await seedPayment('retention-short', {
      created_at: ago(40),
      client_reference_id: REFERENCE,
    });

    await sweep();

    expect(defaults.body).toMatchObject({ object: 'account_settings', personal_data_retention_days: 400 });
    expectDocumented('get', '/v1/account-settings', defaults);
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.errors[0].pointer).toBe('/personal_data_retention_days');
    expectDocumented('put', '/v1/account-settings', set);
    expect(read.body.personal_data_retention_days).toBe(60);
    const erased = await storedPayments().get(due.link_id, 'test', due.id);
    expect(erased?.client_reference_id).toBeUndefined();
    expect(erased?.buyer).toEqual({ erased_at: expect.any(String) });
    expect((await storedPayments().get(kept.link_id, 'test', kept.id))?.client_reference_id).toBe(REFERENCE);
    const byReference = await stack.request('GET', `/v1/payments?client_reference_id=${REFERENCE}`, {
      key: key.api_key,
    });
    expect(byReference.body.data.map((entry: { id: string }) => entry.id)).toEqual([kept.id]);
  });
});
