import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { linkRepository, paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import { withSession } from '../../functions/domain/checkout/sessions.ts';
import { BUILT_IN_SANDBOX_ID, builtInSandbox } from '../../functions/domain/connection.ts';
import type { Amount } from '../../functions/domain/money.ts';
import { newPaymentId, type Payment, startedPayment } from '../../functions/domain/payment.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { LEFT_TO_THE_OUTBOX } from '../../functions/use-cases/checkout.ts';
import { recordSessionOutcome } from '../../functions/use-cases/session-endings.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { sessionRequest } from '../support/psp-fixtures.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * Recording a payment reads what it needs once (docs/performance.md#cost-per-million-payment-links-on-aws): the
 * payment, for its amount's check and its recording alike; a single-use link's other payments with it, so that
 * the link's other open sessions are ended without listing them again when none is left open
 * (docs/orchestration.md#a-links-last-payment-ends-its-other-sessions).
 */
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  // The sweepers run only when a test runs them: a timer's run would end the stray session before the assertions.
  stack = await startTestStack({ schedules: false });
  key = await stack.issueKey('fewreads', 'test');
});
afterAll(() => stack.stop());

/** A link whose buyer was sent to its sandbox session and paid there (not notified yet). */
async function paidSession(body: Record<string, unknown> = {}) {
  const created = await createLink(stack, key.api_key, body);
  await navigate(created.checkout_url);
  const link = await storedLink(created.id);
  // A single-use link's session is the link's; a reusable link's, its buyer's own payment's.
  const [attempt] = await paymentRepository().listOfLink(link.id, link.mode);
  const sessionId = link.psp_session?.id ?? attempt?.session_id;
  if (!sessionId) throw new Error('no session');
  await sandboxSessionStore().complete(sessionId, `sbpay_${sessionId}`, new Date());
  return { link, session: { id: sessionId } };
}

/** The sandbox's notification of the session, through the stack: its answer's body. */
async function notify(linkId: string, sessionId: string): Promise<unknown> {
  const { rawBody, headers } = sandboxNotification({ session_id: sessionId, link_id: linkId });
  const response = await stack.request('POST', `/psp/sandbox/notifications/${BUILT_IN_SANDBOX_ID}`, {
    rawBody,
    headers,
  });
  return response.body;
}

/** The table's reads of the link's partition (the link, its payments) while `act` runs, in order. */
async function partitionReads(linkId: string, act: () => Promise<unknown>): Promise<string[]> {
  const reads: string[] = [];
  const name = `reads-of-${linkId}`;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        Key?: { pk?: string; sk?: string };
        ExpressionAttributeValues?: { ':pk'?: string; ':prefix'?: string };
      };
      const pk = input.Key?.pk ?? input.ExpressionAttributeValues?.[':pk'];
      const sk = input.Key?.sk ?? input.ExpressionAttributeValues?.[':prefix'] ?? '';
      if (pk === `LINK#${linkId}` && /^(GetItem|Query)/.test(String(context.commandName))) {
        const payments = context.commandName === 'QueryCommand' ? 'payments' : 'a payment';
        const what = sk.startsWith('MODE#') ? 'the link' : sk.startsWith('PAYMENT#') ? payments : sk;
        reads.push(`${String(context.commandName).replace('Command', '')} ${what}`);
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await act();
  } finally {
    documentClient().middlewareStack.remove(name);
  }
  return reads;
}

/** Another open session of the link at the sandbox, stored on the link as a checkout stores its session. */
async function storedOnTheLink(linkId: string): Promise<Payment> {
  const link = await storedLink(linkId);
  const connection = builtInSandbox(link.account, link.mode);
  const paymentId = newPaymentId(new Date());
  const psp = await pspConnections().adapter(connection);
  const session = await psp.createSession(sessionRequest(link, connection, paymentId));
  const amount = link.amount as Amount;
  const payment = startedPayment({ id: paymentId, link, connection, amount }, session, new Date());
  await Promise.all([
    linkRepository().saveSession(link, withSession(link, { ...session, amount })),
    paymentRepository().save(payment),
  ]);
  return payment;
}

describe('recording a single-use link’s payment', () => {
  it('reads the link, its payments in one Query, and the link for the paid write: nothing more', async () => {
    const { link, session } = await paidSession();
    let outcome: unknown;
    const reads = await partitionReads(link.id, async () => {
      outcome = await notify(link.id, session.id);
    });
    expect(outcome).toMatchObject({ outcome: 'paid' });
    // The notification's read of the link, the payment with its siblings, the paid write's read of the link.
    expect(reads).toEqual(['GetItem the link', 'Query payments', 'GetItem the link']);
  });

  it('ends a session the link took after its payments were read for the recording', async () => {
    const { link, session } = await paidSession();
    let stray: Payment | undefined;
    const payments = paymentRepository();
    const deps = {
      links: linkRepository(),
      payments: {
        ...payments,
        listOfLink: async (linkId: string, mode: Mode) => {
          const listed = await payments.listOfLink(linkId, mode);
          // A checkout in another tab stores its new session on the link just after this read.
          stray ??= await storedOnTheLink(linkId);
          return listed;
        },
      },
      queue: LEFT_TO_THE_OUTBOX,
      pspSessions: pspConnections(),
      now: () => new Date(),
      checkoutBase: config().CHECKOUT_BASE,
    };
    const connection = builtInSandbox(link.account, link.mode);
    const status = await (await pspConnections().adapter(connection)).retrieveSession(session.id);
    expect(await recordSessionOutcome(deps, connection, link, status)).toBe('paid');
    const other = stray as Payment;
    expect((await sandboxSessionStore().get(other.session_id as string))?.status).toBe('expired');
    expect((await paymentRepository().get(link.id, 'test', other.id))?.status).toBe('canceled');
  });
});

describe('recording a reusable link’s payment', () => {
  it('reads the payment alone, not the link’s other buyers’ payments, while the link takes more', async () => {
    const { link, session } = await paidSession({ reusable: true });
    let outcome: unknown;
    const reads = await partitionReads(link.id, async () => {
      outcome = await notify(link.id, session.id);
    });
    expect(outcome).toMatchObject({ outcome: 'paid' });
    expect(reads).toEqual(['GetItem the link', 'GetItem a payment', 'GetItem the link']);
  });
});
