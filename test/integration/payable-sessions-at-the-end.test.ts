import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import {
  eventQueue,
  linkRepository,
  paymentRepository,
  sandboxSessionStore,
} from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { newPaymentId, startedPayment } from '../../functions/domain/payment.ts';
import type { PaymentLink } from '../../functions/domain/payment-link.ts';
import { canEndSessions } from '../../functions/ports/psp-capabilities.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { expireDueLinks } from '../../functions/use-cases/payment-links.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { eventually } from '../support/eventually.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { mollie: MOLLIE_FAKE };

/**
 * A cancel or an expiry never reports a link done while a payment on it can still go through, and a reusable
 * link that took its last payment ends the sessions other buyers still have open
 * (docs/orchestration.md#one-payable-session, #reusable-links). The payments under way are the sandbox's
 * `--simulate processing` (docs/checkout.md#sandbox) and a Mollie bank transfer (Mollie answers 422 to a cancel).
 */

let psps: PspStack<typeof FAKES>;
let mollie: FakeMollie;
let stack: TestStack;

beforeAll(async () => {
  // The sweepers run only when a test runs them: a timer's run would race the assertions between two steps.
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false } });
  ({ stack, mollie } = psps);
});
afterAll(() => psps?.stop());

type Provider = 'sandbox' | 'mollie';

let accounts = 0;
/** A fresh account paying through one connection: a `processing` sandbox, or Mollie. */
async function account(provider: Provider): Promise<{ key: IssuedApiKey; connection: PspConnection }> {
  const name = `ending-${provider}-${++accounts}`;
  const key = await stack.issueKey(name, 'test');
  const connection =
    provider === 'sandbox'
      ? await addConnection({
          account: name,
          mode: 'test',
          provider: 'sandbox',
          name: 'Sandbox',
          simulate: 'processing',
        })
      : await psps.connect(name, 'mollie');
  return { key, connection };
}

/** A buyer opens the link's page and is sent to a new session: that attempt's session id. */
async function openSession(link: { id: string; checkout_url: string }): Promise<string> {
  const before = new Set(
    (await paymentRepository().listOfLink(link.id, 'test')).map((payment) => payment.id),
  );
  const page = await httpRequest(link.checkout_url, { headers: NAVIGATION_HEADERS });
  expect(page.status).toBe(200);
  const opened = (await paymentRepository().listOfLink(link.id, 'test')).find(
    (payment) => !before.has(payment.id) && payment.status === 'pending',
  );
  if (!opened?.session_id) throw new Error('no session was opened');
  return opened.session_id;
}

/** The buyer starts a payment that takes a while (a transfer): its PSP will not end the session meanwhile. */
async function startTransfer(provider: Provider, sessionId: string): Promise<void> {
  if (provider === 'mollie') {
    mollie.setStatus(sessionId, 'pending');
    return;
  }
  const page = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${sessionId}/pay`, { method: 'POST' });
  expect(page.status).toBe(200);
  expect((await sandboxSessionStore().get(sessionId))?.status).toBe('processing');
}

/** The transfer arrives at the PSP. Its notification is not sent: what the service asks the PSP must suffice. */
async function transferArrives(provider: Provider, sessionId: string): Promise<void> {
  if (provider === 'mollie') {
    mollie.setStatus(sessionId, 'paid');
    return;
  }
  await documentClient().send(
    new UpdateCommand({
      TableName: stack.tableName,
      Key: checkoutKeys.sandboxSession(sessionId),
      UpdateExpression: 'SET settles_at = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }),
  );
}

const cancel = (key: IssuedApiKey, linkId: string) =>
  stack.request('POST', `/v1/payment-links/${linkId}/cancel`, { key: key.api_key });

const eventTypes = async (key: IssuedApiKey, linkId: string): Promise<string[]> =>
  (await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: key.api_key })).body.data
    .map((event: { type: string }) => event.type)
    .sort();

const expireAt = (now: Date) =>
  expireDueLinks(
    {
      links: linkRepository(),
      queue: eventQueue(),
      pspSessions: pspConnections(),
      payments: paymentRepository(),
      now: () => now,
      checkoutBase: config().CHECKOUT_BASE,
    },
    500,
  );

/** How each kind of link ends once the transfer arrived: a single-use link is paid, a capped reusable one completed. */
const kinds = [
  { kind: 'single-use', body: {}, done: 'paid' },
  { kind: 'reusable', body: { reusable: true, max_payments: 1 }, done: 'completed' },
] as const;

describe.each(['sandbox', 'mollie'] as const)('a payment under way at %s', (provider) => {
  it.each(kinds)(
    'holds a cancel of a $kind link back until it went through, then the link is $done',
    async ({ body, done }) => {
      const { key } = await account(provider);
      const link = await createLink(stack, key.api_key, body);
      const session = await openSession(link);
      await startTransfer(provider, session);

      const held = await cancel(key, link.id);
      expect(held.status).toBe(503);
      expect(held.body.code).toBe('service_unavailable');
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await storedLink(link.id)).status).toBe('open');
      expect(await eventTypes(key, link.id)).toEqual([]);

      await transferArrives(provider, session);
      const after = await cancel(key, link.id);
      if (done === 'paid') {
        expect(after.status).toBe(409);
        expect(after.body.code).toBe('invalid_state');
      } else {
        // A completed link stays completed: a cancel only ends what other buyers still have open.
        expect(after.status).toBe(200);
        expect(after.body.status).toBe('completed');
      }
      const stored = await storedLink(link.id);
      expect(stored.status).toBe(done);
      expect(stored.canceled_at).toBeNull();
      expect(await eventTypes(key, link.id)).toEqual(['payment_link.paid']);
    },
  );

  it.each(kinds)(
    'keeps a $kind link from expiring until it went through, then the link is $done',
    async ({ body, done }) => {
      const { key } = await account(provider);
      const expiresAt = new Date(Date.now() + 20_000);
      const link = await createLink(stack, key.api_key, { ...body, expires_at: expiresAt.toISOString() });
      const session = await openSession(link);
      await startTransfer(provider, session);
      // Past the link's expiry, within the session's own (at least a minute at the sandbox, 15 at Mollie).
      const sweep = new Date(expiresAt.getTime() + 5_000);

      await expireAt(sweep);
      expect((await storedLink(link.id)).status).toBe('open');
      expect(await eventTypes(key, link.id)).toEqual([]);

      await transferArrives(provider, session);
      await expireAt(sweep);
      expect((await storedLink(link.id)).status).toBe(done);
      expect(await eventTypes(key, link.id)).toEqual(['payment_link.paid']);
    },
  );
});

describe('the sandbox’s processing simulation', () => {
  it('shows the payment under way, then succeeds and notifies once its time came', async () => {
    const { key } = await account('sandbox');
    const link = await createLink(stack, key.api_key);
    const session = await openSession(link);

    const processing = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session}/pay`, {
      method: 'POST',
    });
    expect(processing.text).toContain('Payment processing');
    // Its PSP refuses to end it meanwhile and says it may still be paid.
    const psp = await pspConnections().adapter(
      await pspConnections().sessionConnection('', 'test', (await storedLink(link.id)).psp_session!),
    );
    if (!canEndSessions(psp)) throw new Error('the sandbox ends sessions');
    expect(await psp.expireSession((await storedLink(link.id)).psp_session!)).toBe('refused');
    expect((await psp.retrieveSession(session)).state).toBe('pending');
    expect((await storedLink(link.id)).status).toBe('open');

    await transferArrives('sandbox', session);
    const seen = await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session}`, {
      headers: NAVIGATION_HEADERS,
    });
    expect(seen.text).toContain('Payment complete');
    await eventually(async () => (await storedLink(link.id)).status === 'paid');
    expect(await eventTypes(key, link.id)).toEqual(['payment_link.paid']);
  });
});

/**
 * A buyer whose visit raced the others when one place remained: the session and its pending payment as the
 * checkout records them (the checkout itself refuses a visit once the link's places are taken).
 */
async function racedSession(link: PaymentLink, connection: PspConnection): Promise<string> {
  const paymentId = newPaymentId(new Date());
  const amount = link.amount!;
  const session = await (await pspConnections().adapter(connection)).createSession({
    link,
    amount,
    successUrl: `${stack.checkoutBase}/${link.id}/complete`,
    cancelUrl: `${stack.checkoutBase}/${link.id}?canceled=1`,
    notificationUrl: `${stack.baseUrl}/psp/mollie/notifications/${connection.id}`,
    expiresAt: new Date(Date.now() + 15 * 60_000),
    paymentId,
    locale: 'en',
    paymentMethods: null,
  });
  await paymentRepository().save(
    startedPayment({ id: paymentId, link, connection, amount }, session, new Date()),
  );
  await linkRepository().noteSession(await storedLink(link.id));
  return session.id;
}

describe('a reusable link that took its last payment', () => {
  it('ends the other buyers’ sessions, and a cancel of it waits for a transfer under way and records it', async () => {
    const { key, connection } = await account('mollie');
    const link = await createLink(stack, key.api_key, { reusable: true, max_payments: 1 });
    const payer = await openSession(link);
    const idle = await racedSession(await storedLink(link.id), connection);
    const transferring = await racedSession(await storedLink(link.id), connection);
    mollie.setStatus(transferring, 'pending');

    mollie.setStatus(payer, 'paid');
    const notified = await stack.request('POST', `/psp/mollie/notifications/${connection.id}`, {
      rawBody: mollie.webhookBody(payer),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(notified.status).toBe(200);
    expect((await storedLink(link.id)).status).toBe('completed');
    // The idle buyer's session was ended at Mollie and its attempt recorded so; the transfer could not be.
    expect(mollie.payments.get(idle)?.status).toBe('canceled');
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    const statusOf = (sessionId: string) =>
      payments.find((payment) => payment.session_id === sessionId)?.status;
    expect([statusOf(payer), statusOf(idle), statusOf(transferring)]).toEqual([
      'succeeded',
      'canceled',
      'pending',
    ]);

    const held = await cancel(key, link.id);
    expect(held.status).toBe(503);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);

    mollie.setStatus(transferring, 'paid');
    const canceled = await cancel(key, link.id);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'completed', succeeded_payments: 2 });
    expect((await storedLink(link.id)).canceled_at).toBeNull();
    expect(await eventTypes(key, link.id)).toEqual(['payment_link.duplicate_payment', 'payment_link.paid']);
  });
});
