import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type NotificationItem } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { notifyAdyen } from '../../functions/adapters/psp/adyen/test/notify.ts';
import { config } from '../../functions/config.ts';
import { eventQueue, linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import { FIRST_CHECK_AFTER_MS, type Payment } from '../../functions/domain/payment.ts';
import type { PaymentRepository } from '../../functions/ports/payment-repository.ts';
import type { PspSessionStatus } from '../../functions/ports/psp.ts';
import { pspConnections } from '../../functions/psp-dependencies.ts';
import { endAttempt, recordSessionOutcome } from '../../functions/use-cases/session-endings.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import { OUTCOMES_AT_ONCE, openedSession } from '../support/session-outcomes.ts';
import { sweepPendingPayments } from '../support/sweepers.ts';

/**
 * What the merchant is told of a payment is what the payment records (docs/orchestration.md#what-the-merchant-is-told),
 * however its writers interleave: each test holds one writer between its read and its write (`heldSave`) while
 * another writes, against the embedded DynamoDB and Adyen's fake, whose links keep a refused try pending.
 */

const FAKES = { adyen: ADYEN_FAKE };
let psps: PspStack<typeof FAKES>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES, stack: { schedules: false, environment: OUTCOMES_AT_ONCE } });
});
afterAll(() => psps?.stop());

const DECLINE = { code: 'insufficient_funds', message: 'Not enough balance (Adyen code 12)' } as const;

/** A shop's Adyen link (`openedSession`), its stored link, and `notify`, which brings it Adyen's notification. */
async function openedLink(shop: string) {
  const opened = await openedSession(psps, shop, 'adyen');
  const notify = (item: NotificationItem) => notifyAdyen(psps.stack, psps.adyen, opened.connection.id, item);
  return { ...opened, stored: await storedLink(opened.link.id), notify };
}

/** What Adyen answers of the session, read through the adapter the sweeper uses. */
async function sessionRead(connection: PspConnection, sessionId: string): Promise<PspSessionStatus> {
  return (await pspConnections().adapter(connection)).retrieveSession(sessionId);
}

/** What recording a PSP's status and ending a session need, with `payments` as the store. */
const recording = (payments: PaymentRepository = paymentRepository()) => ({
  links: linkRepository(),
  payments,
  queue: eventQueue(),
  now: () => new Date(),
  checkoutBase: config().CHECKOUT_BASE,
  pspSessions: pspConnections(),
});

/**
 * The payment store, but its first save of a payment `holds` picks waits until `release`: a writer held between its
 * read (and, for a failure, its event) and its write. `reached` once it waits.
 */
function heldSave(holds: (payment: Payment) => boolean) {
  const payments = paymentRepository();
  let arrived = () => {};
  let release = () => {};
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const store: PaymentRepository = {
    save: async (payment, before) => {
      if (!held && holds(payment)) {
        held = true;
        arrived();
        await released;
      }
      return payments.save(payment, before);
    },
    get: (...args) => payments.get(...args),
    listOfLink: (...args) => payments.listOfLink(...args),
    listOfLinkSince: (...args) => payments.listOfLinkSince(...args),
    dueForCheck: (...args) => payments.dueForCheck(...args),
    pendingOfConnection: (...args) => payments.pendingOfConnection(...args),
  };
  return { store, reached, release };
}

/** The status sweeper's run once the payment's first check is due. */
const sweepWhenDue = () => sweepPendingPayments(new Date(Date.now() + FIRST_CHECK_AFTER_MS + 1_000));

describe('a payment failure reported while another writer settles the payment', () => {
  it('is what the payment records when the sweeper stored the expiry between the event and the write', async () => {
    const { connection, session, stored, outcome } = await openedLink('raceexpiredafterevent');
    psps.adyen.expire(session.id);
    // The sweeper reads the link expired; Adyen's late notification of a refused try reads it with that try.
    const expired = await sessionRead(connection, session.id);
    const held = heldSave((payment) => payment.status === 'failed');
    const notified = recordSessionOutcome(recording(held.store), connection, stored, {
      ...expired,
      declinedAttempt: DECLINE,
    });
    await held.reached;
    await recordSessionOutcome(recording(), connection, stored, expired);
    held.release();
    await notified;

    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ status: 'failed', failure: { code: 'insufficient_funds' } });
    expect(events).toEqual(['payment_link.payment_failed']);
  });

  it('is reported when a refused try stored between the read and the write turns the expiry into a failure', async () => {
    const { connection, session, stored, outcome } = await openedLink('racerefusedbeforewrite');
    psps.adyen.expire(session.id);
    const expired = await sessionRead(connection, session.id);
    const held = heldSave((payment) => payment.status === 'expired');
    const swept = recordSessionOutcome(recording(held.store), connection, stored, expired);
    await held.reached;
    // Adyen's notification of a try it refused while the link was still active.
    await recordSessionOutcome(recording(), connection, stored, {
      ...expired,
      state: 'pending',
      failure: null,
      declinedAttempt: DECLINE,
    });
    held.release();
    await swept;

    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ status: 'failed', failure: { code: 'insufficient_funds' } });
    expect(events).toEqual(['payment_link.payment_failed']);
  });
});

describe('a session we ended after its PSP refused a try on it', () => {
  it('stays canceled when the refused try was stored after the checkout read the payment it ends', async () => {
    const { link, session, stored, notify, outcome } = await openedLink('raceendedrefused');
    const readByTheCheckout = await paymentRepository().get(link.id, 'test', session.payment_id);
    if (!readByTheCheckout || !stored.psp_session) throw new Error('no pending payment');
    await notify(psps.adyen.refuse(session.id, { reason: 'Not enough balance', code: '12' }));
    const end = await endAttempt(recording(), stored, stored.psp_session, {
      payment: readByTheCheckout,
      recorded: true,
    });
    expect(end).toBe('ended');
    await sweepWhenDue();

    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ status: 'canceled', failure: { code: 'canceled' } });
    expect(events).toEqual([]);
  });

  it('is canceled, not failed with the refusal, once a PATCH had its PSP end it', async () => {
    const { key, link, session, notify, outcome } = await openedLink('racepatchedrefused');
    await notify(psps.adyen.refuse(session.id, { reason: 'Not enough balance', code: '12' }));
    const patched = await psps.stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key,
      body: { description: 'Changed after a refused try' },
    });
    expect(patched.status).toBe(200);
    await sweepWhenDue();

    const { payment, events } = await outcome();
    expect(payment).toMatchObject({ status: 'canceled', failure: { code: 'canceled' } });
    expect(events).toEqual([]);
  });
});
