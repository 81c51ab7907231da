import { createHash } from 'node:crypto';
import { withPspBuyer } from '../domain/buyer-details.ts';
import type { PspConnection } from '../domain/connection.ts';
import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import { ID_RANDOM_LENGTH } from '../domain/ids.ts';
import { reportPayment, type Transition } from '../domain/link-events.ts';
import { addPayment, withPaymentReference } from '../domain/link-payments.ts';
import { opensMandate } from '../domain/mandates.ts';
import {
  type Payment,
  type PaymentOutcome,
  type PaymentResource,
  paymentAmount,
  settle,
  startedPayment,
  toPaymentResource,
  withReference,
} from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { configuredFee, onlyMethodOf, reportedFee } from '../domain/payment-money.ts';
import type { Principal } from '../domain/principal.ts';
import { bytesToBase62 } from '../domain/random.ts';
import { asReportedFailure } from '../domain/reported-payments.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { PspSessionStatus } from '../ports/psp.ts';
import type { CheckedSessionStatus, PaymentRead } from './charged-amounts.ts';
import { applyTransition, getPaymentLink } from './link-transitions.ts';
import type { MandatePayments } from './subscription-starts.ts';

export interface PaymentDependencies {
  links: LinkRepository;
  payments: PaymentRepository;
  queue: EventQueue;
  now: () => Date;
  checkoutBase: string;
  /**
   * What a succeeded payment of a subscription link or an update link starts (./subscription-starts.ts); every
   * path that may record one wires it: without it, such a payment fails to record (and stays pending) rather than
   * start nothing.
   */
  mandatePayments?: MandatePayments | undefined;
}

export type SessionOutcome = 'paid' | 'already_paid' | 'duplicate' | 'failed' | 'ignored';

/**
 * What recording a PSP's status came to, and, when the payment paid its link (`paid`), the transition that did:
 * the link as that write found it and as it left it.
 */
export interface RecordedStatus {
  outcome: SessionOutcome;
  paid?: Transition;
  /** A failure (`failed`): whether the merchant was told of it (`payment_link.payment_failed`). */
  told?: boolean;
}

/**
 * The payment id of a session opened before payments existed (its PSP echoes none): derived from the session,
 * so every notification about it names the same payment.
 */
export function paymentIdOfSession(sessionId: string): string {
  const digest = createHash('sha256').update(`payment-of-session\0${sessionId}`).digest();
  return `pay_${bytesToBase62(digest, ID_RANDOM_LENGTH)}`;
}

const MAX_SAVE_ATTEMPTS = 4;
/** How long the sweeper keeps asking about a session whose end we never learnt (the longest PSP session). */
const UNKNOWN_SESSION_LIFETIME_MS = 24 * 3_600_000;

/**
 * Applies what the PSP says about a session (fetched from the PSP, never a notification body) to its payment
 * and its link, so notifications and the sweeper record the same thing the same way:
 * - succeeded: the payment succeeds and the link is paid with it; if the link was already paid by another
 *   payment, the merchant gets `payment_link.duplicate_payment` (docs/orchestration.md#duplicate-payments); a
 *   reusable link records each payment (`addPayment`: `payment_link.paid`, or beyond `max_payments` that
 *   duplicate event);
 * - failed: the payment fails with the PSP's reason and the merchant gets `payment_link.payment_failed`;
 * - canceled or expired: the payment says so, but an expiry after a try its PSP refused, which fails the payment
 *   with that decline (as failed, above; docs/orchestration.md#decline-codes);
 * - pending: nothing changes, but a refused try the PSP tells of (`declinedAttempt`) is kept on the payment.
 * Every write is conditional and every report happens once per payment, however many copies race. Only a status
 * whose amount was checked against its payment's is taken (`checkChargedAmount`, ./charged-amounts.ts): a success
 * at another amount arrives here as the failure `amount_mismatch`.
 *
 * The link moves first and the payment is saved after: a success is never stored without moving the link. Should
 * the link's write fail, the payment stays as it was (pending, on the sweeper's list), so the PSP's next
 * notification or the sweeper records it again (docs/orchestration.md#missed-notifications). The payment's write is
 * conditional on the version read; one that lost to another writer is settled again, and stored as the merchant
 * was told (`saveSettled`: docs/orchestration.md#what-the-merchant-is-told).
 *
 * The payment is read once: `read`, when the amount's check read it already, else here.
 */
export async function recordSessionStatus(
  deps: PaymentDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: CheckedSessionStatus,
  read?: PaymentRead,
): Promise<RecordedStatus> {
  const outcome: PaymentOutcome = {
    state: status.state,
    failure: status.failure,
    reference: status.paymentReference,
    declinedAttempt: status.declinedAttempt,
    moneyUnderWay: status.paymentUnderWay,
  };
  const { payment, save } = await settledPayment(deps, connection, link, status, outcome, read);
  const result = await moveLink(deps, connection, link, payment, status);
  if (payment.status === 'succeeded' && opensMandate(link))
    await mandatePaymentsOf(deps).paid(connection, link, payment, status);
  const reportedAgain = await save(result.told ? payment : undefined, (settled) =>
    moveLink(deps, connection, link, settled, status),
  );
  return reportedAgain ?? result;
}

function mandatePaymentsOf(deps: PaymentDependencies): MandatePayments {
  if (!deps.mandatePayments)
    throw new Error('A payment that opens a mandate was recorded without `mandatePayments`.');
  return deps.mandatePayments;
}

/** What the payment's outcome does to its link: the transition it makes and the event it sends, if any. */
async function moveLink(
  deps: PaymentDependencies,
  connection: PspConnection,
  link: PaymentLink,
  payment: Payment,
  status: PspSessionStatus,
): Promise<RecordedStatus> {
  const load = async () => {
    const current = await deps.links.get(link.id, link.mode);
    if (!current) throw new NotFoundError(`No payment link ${link.id}.`);
    return current;
  };
  const transitions = {
    links: deps.links,
    now: deps.now,
    queue: deps.queue,
    checkoutBase: deps.checkoutBase,
  };
  if (payment.status === 'succeeded') {
    // Paid even while the PSP's reference is unknown (a page that says paid before the notification with it): a
    // success is never stored without moving the link; the reference follows
    // (docs/orchestration.md#a-success-before-its-reference).
    const paid = {
      id: payment.id,
      connection_id: connection.id,
      provider: connection.provider,
      reference: payment.provider_reference,
      // What this payment charged: refunds of the link are bounded by it (a range link's is the buyer's choice).
      amount: paymentAmount(payment, link),
    };
    const result = await applyTransition(transitions, load, (current, now) =>
      addPayment(current, paid, toPaymentResource(payment, current), now),
    );
    if (result.transition?.event.type === 'payment_link.duplicate_payment') {
      putMetrics({ PaymentsSucceeded: 1 }, { provider: connection.provider });
      logger.warn('A payment was confirmed after its reusable link took its last one', {
        link_id: link.id,
        payment_id: payment.id,
        connection_id: connection.id,
      });
      return { outcome: 'duplicate' };
    }
    if (result.transition) {
      putMetrics({ PaymentsSucceeded: 1 }, { provider: connection.provider });
      if (paid.reference === null) {
        logger.warn('Payment confirmed before its PSP reference: the link is paid, the reference follows', {
          link_id: link.id,
          payment_id: payment.id,
          connection_id: connection.id,
        });
      }
      return { outcome: 'paid', paid: result.transition };
    }
    if (payment.provider_reference !== null) {
      await storeLinkReference(deps, link, payment.id, payment.provider_reference);
    }
    const reported = await applyTransition(transitions, load, (current, now) =>
      reportPayment(current, 'payment_link.duplicate_payment', toPaymentResource(payment, current), now),
    );
    if (reported.transition) {
      logger.warn('A second payment was confirmed for a paid link', {
        link_id: link.id,
        payment_id: payment.id,
        connection_id: connection.id,
      });
      return { outcome: 'duplicate' };
    }
    return { outcome: 'already_paid' };
  }
  // An expiry fails a payment whose PSP refused a try on it (`settle`): a failure the merchant is told of too.
  if (payment.status === 'failed' && (status.state === 'failed' || status.state === 'expired')) {
    putMetrics({ PaymentsFailed: 1 }, { provider: connection.provider });
    const reported = await applyTransition(transitions, load, (current, now) =>
      reportPayment(current, 'payment_link.payment_failed', toPaymentResource(payment, current), now),
    );
    // Told now or by an earlier copy; not at all when the link no longer reports failures (canceled, expired).
    return { outcome: 'failed', told: reported.link.reported_payments.includes(payment.id) };
  }
  return { outcome: 'ignored' };
}

/**
 * The link paid by this payment before its PSP reference was known gets it (a conditional write; a link that
 * changed meanwhile is read again, and a lost race leaves it for the next copy of the notification).
 */
async function storeLinkReference(
  deps: PaymentDependencies,
  link: PaymentLink,
  paymentId: string,
  reference: string,
): Promise<void> {
  for (let attempt = 1; attempt <= MAX_SAVE_ATTEMPTS; attempt++) {
    const current = attempt === 1 ? link : await deps.links.get(link.id, link.mode);
    const after = current && withPaymentReference(current, paymentId, reference);
    if (!current || !after) return;
    try {
      await deps.links.update(current, after);
      return;
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_SAVE_ATTEMPTS) throw error;
    }
  }
}

/**
 * The payment as it stands after the PSP's answer (created when the attempt left no record of its own), and
 * `save`, which stores it: conditionally on the record read (`alreadyRead`, when the caller read it), read and
 * settled again when it changed meanwhile.
 */
async function settledPayment(
  deps: PaymentDependencies,
  connection: PspConnection,
  link: PaymentLink,
  status: PspSessionStatus,
  outcome: PaymentOutcome,
  alreadyRead: PaymentRead | undefined,
): Promise<{
  payment: Payment;
  save: (
    reported: Payment | undefined,
    report: (settled: Payment) => Promise<RecordedStatus>,
  ) => Promise<RecordedStatus | undefined>;
}> {
  const id = status.paymentId ?? paymentIdOfSession(status.id);
  const settleFrom = (stored: Payment | undefined) => {
    const now = deps.now();
    // A session whose attempt left no record is recorded at what the PSP says it charges: a buyer-chosen amount
    // is known to nothing else once the link's session moved on. Only a PSP answer without one falls back to the
    // link's record of the session, then to the link's amount.
    const session = link.psp_session?.id === status.id ? link.psp_session : undefined;
    const current =
      stored ??
      startedPayment(
        { id, link, connection, amount: status.amount ?? paymentAmount(session ?? {}, link) },
        {
          id: status.id,
          expires_at:
            link.psp_session?.id === status.id
              ? link.psp_session.expires_at
              : new Date(now.getTime() + UNKNOWN_SESSION_LIFETIME_MS).toISOString(),
        },
        now,
      );
    return {
      stored,
      current,
      next:
        withFeeOfSuccess(
          withBuyerOfSuccess(settle(current, outcome, now), status),
          status,
          connection,
          link,
        ) ?? withReference(current, outcome.reference, now),
    };
  };
  const settleStored = async () => settleFrom(await deps.payments.get(link.id, link.mode, id));
  const first = alreadyRead?.id === id ? settleFrom(alreadyRead.stored) : await settleStored();
  return {
    payment: first.next ?? first.current,
    save: (reported, report) => saveSettled(deps, first, settleStored, reported, report),
  };
}

/** A payment as read (`stored`, or `current` when there was none) and as the PSP's answer leaves it (`next`). */
interface SettledRead {
  stored: Payment | undefined;
  current: Payment;
  next: Payment | undefined;
}

/**
 * Stores the settled payment on condition of the version read. When another writer changed it meanwhile, it is read
 * and settled again, and its report kept in step with what is stored: a failure already reported (`reported`) is
 * what the payment records (`asReportedFailure`), even over an end written meanwhile; a failure the new read
 * brings (a refused try stored meanwhile) is reported (`report`) before it is stored, as the first was, so that no
 * payment is stored failed without its event. Answers what that report recorded, if one was made.
 */
async function saveSettled(
  deps: PaymentDependencies,
  first: SettledRead,
  settleStored: () => Promise<SettledRead>,
  reported: Payment | undefined,
  report: (settled: Payment) => Promise<RecordedStatus>,
): Promise<RecordedStatus | undefined> {
  let read = first;
  let told = reported;
  let reportedAgain: RecordedStatus | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      await writeSettled(deps.payments, read);
      return reportedAgain;
    } catch (error) {
      if (!(error instanceof ConcurrentModificationError) || attempt >= MAX_SAVE_ATTEMPTS) throw error;
    }
    read = await settleStored();
    if (told) read = asTold(read, told, deps.now());
    else if (read.next?.status === 'failed') {
      reportedAgain = await report(read.next);
      if (reportedAgain.told) told = read.next;
    }
  }
}

async function writeSettled(payments: PaymentRepository, read: SettledRead): Promise<void> {
  if (read.next) await payments.save(read.next, read.stored);
  else if (!read.stored) await payments.save(read.current);
}

/** A new read of a payment whose failure the merchant was told of: it is to record that failure. */
const asTold = (read: SettledRead, told: Payment, now: Date): SettledRead =>
  read.stored ? { ...read, next: asReportedFailure(read.stored, told, now) } : read;

/**
 * A payment that just succeeded keeps what the PSP's page asked of its buyer, beside what our page stored when the
 * session opened (`withPspBuyer`): once, with the success, so a later report never rewrites it.
 */
function withBuyerOfSuccess(settled: Payment | undefined, status: PspSessionStatus): Payment | undefined {
  if (settled?.status !== 'succeeded' || !status.buyer) return settled;
  const buyer = withPspBuyer(settled.buyer, status.buyer);
  return buyer ? { ...settled, buyer } : settled;
}

/**
 * A payment that just succeeded records its fee, once, with the success (docs/api.md#fees-and-refunds-of-a-payment):
 * the one its PSP reports in the status read back (`fee_source: "reported"`), else the estimate of its
 * connection's fee lines (`"configured"`), when one applies.
 */
function withFeeOfSuccess(
  settled: Payment | undefined,
  status: PspSessionStatus,
  connection: PspConnection,
  link: PaymentLink,
): Payment | undefined {
  if (settled?.status !== 'succeeded' || settled.fee) return settled;
  const amount = paymentAmount(settled, link);
  const fee = reportedFee(amount, status.fee) ?? configuredFee(connection.fees, amount, onlyMethodOf(link));
  return fee ? { ...settled, fee } : settled;
}

/** The payments of the caller's link, newest first, as the merchant sees them. */
export async function listPayments(
  deps: Pick<PaymentDependencies, 'links' | 'payments' | 'now'>,
  principal: Principal,
  linkId: string,
): Promise<PaymentResource[]> {
  const link = await getPaymentLink(deps, principal, linkId);
  const payments = await deps.payments.listOfLink(link.id, link.mode);
  return payments.map((payment) => toPaymentResource(payment, link));
}
