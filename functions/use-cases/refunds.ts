import { createHash } from 'node:crypto';
import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import { idFromBytes, newId } from '../domain/ids.ts';
import { duplicateEntry, paidPayment, withDuplicate } from '../domain/link-payments.ts';
import { type Amount, toMinorUnits } from '../domain/money.ts';
import type { PaidPayment, PaymentLink, Refund } from '../domain/payment-link.ts';
import type { Mode, Principal } from '../domain/principal.ts';
import {
  afterRefundCheck,
  firstRefundCheckAt,
  MAX_REFUNDS_PER_LINK,
  paymentAmountMinor,
  pendingRefunds,
  type RefundOutcome,
  type RefundRules,
  requestRefund,
  settleRefund,
} from '../domain/refund.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import type { PspRefundStatus } from '../ports/psp.ts';
import type { RefundLedger } from '../ports/refund-ledger.ts';
import {
  getPaymentLink,
  type LinkDependencies,
  publishCommitted,
  withEventCheckoutUrl,
} from './link-transitions.ts';

/** Refunds at the PSP that took a link's payment (implemented by the PSP selection, which knows the connection). */
export interface PaymentRefunds {
  /** Asks the PSP to refund; what it says at once. Throws when it could not be asked (the refund stays pending). */
  refund(link: PaymentLink, refund: Refund): Promise<RefundOutcome>;
  /**
   * Asks again for a refund whose first request the PSP never answered, with the same idempotency key, but only
   * within the PSP's idempotency window after the refund was requested; undefined past it (asking could then
   * refund twice).
   */
  refundAgain(link: PaymentLink, refund: Refund, now: Date): Promise<RefundOutcome | undefined>;
  /** What the PSP says now of a refund it answered with a reference. */
  refundStatus(link: PaymentLink, refund: Refund): Promise<RefundOutcome>;
  /** What the PSP that took a payment (its `provider`) allows of its refunds. */
  refundRules(provider: string): RefundRules;
}

/** What recording a PSP's word on a refund needs: the link and its refunds, and where the webhook goes. */
export type RefundRecordDependencies = LinkDependencies & {
  ledger: RefundLedger;
  queue: EventQueue;
  checkoutBase: string;
};

/**
 * What a refund request needs besides: the PSPs, and the stored payments, where a single-use link's duplicate
 * payment is found before its first refund (`duplicateEntry`).
 */
export type RefundDependencies = RefundRecordDependencies & {
  refunds: PaymentRefunds;
  payments: Pick<PaymentRepository, 'get'>;
};

export function refundOutcomeOf(status: PspRefundStatus): RefundOutcome {
  return { status: status.state, providerReference: status.reference, failureMessage: status.failureMessage };
}

const MAX_RESERVE_ATTEMPTS = 5;

/**
 * The id of the refund a request with an `Idempotency-Key` makes: derived from the key, its (account, mode) and
 * the link, so that a retry that runs again (its first answer lost: a crash, an idempotency record that could not
 * be completed) finds the refund already reserved and answers it, instead of reserving and sending another.
 * Without a key, a random id.
 */
export function refundIdFor(
  principal: Principal,
  linkId: string,
  idempotencyKey: string | undefined,
): string {
  if (idempotencyKey === undefined) return newId('re');
  const digest = createHash('sha256')
    .update(JSON.stringify(['refund', principal.account, principal.mode, linkId, idempotencyKey]))
    .digest();
  return idFromBytes('re', digest);
}

/**
 * `POST /v1/payment-links/{id}/refunds`: reserves the amount on the link (a write conditioned on what remains
 * of the payment refunded, so concurrent refunds never add up past that payment), then asks the PSP that took the payment and records
 * what it said. Once the amount is reserved the answer is the refund (201), whatever fails after: a PSP that
 * cannot be reached, or a store that cannot record its answer, leaves the refund `pending`, its amount still
 * reserved, and the refund sweeper asks again with the same idempotency key (`checkPendingRefunds`). A PSP that
 * definitely refuses (`PspRefusalError`) fails the refund and frees its amount. `refundId` (`refundIdFor`)
 * names the refund; a refund of that id on the link already is answered as it stands (docs/webhooks.md#refunds).
 */
export async function createRefund(
  deps: RefundDependencies,
  principal: Principal,
  linkId: string,
  requested: Amount | undefined,
  refundId: string = newId('re'),
  /**
   * The payment to refund: required on a reusable link; a single-use link's own payment by default, or a
   * duplicate payment of it (docs/orchestration.md#duplicate-payments).
   */
  paymentId?: string,
  /** Why, when the merchant says: stored on the refund, and so handed to the PSP with it. */
  why?: Parameters<typeof requestRefund>[6],
): Promise<Refund> {
  let link: PaymentLink;
  let refund: Refund;
  for (let attempt = 1; ; attempt++) {
    const read = await getPaymentLink(deps, principal, linkId);
    const made = read.refunds.find((candidate) => candidate.id === refundId);
    if (made) return made;
    const duplicate = await unrecordedDuplicate(deps, read, paymentId);
    link = duplicate ? withDuplicate(read, duplicate) : read;
    refund = requestRefund(
      link,
      requested,
      refundId,
      deps.now(),
      (provider) => deps.refunds.refundRules(provider),
      paymentId,
      why,
    );
    if (await reserve(deps, read, refund, duplicate)) break;
    // Another refund took part of the amount first: decide again on what remains now (maybe a 422).
    if (attempt >= MAX_RESERVE_ATTEMPTS) {
      throw new ConcurrentModificationError(
        `Refunds of ${linkId} kept changing while this one was reserved.`,
      );
    }
  }
  let outcome: RefundOutcome;
  try {
    outcome = await deps.refunds.refund(link, refund);
  } catch (error) {
    logger.error('Refund request to the PSP failed; the refund stays pending', {
      link_id: link.id,
      refund_id: refund.id,
      error,
    });
    return refund;
  }
  try {
    return await recordRefundOutcome(deps, link.id, link.mode, refund.id, outcome);
  } catch (error) {
    // The PSP has the request: a 5xx now would free the Idempotency-Key, and a retry would refund again. The
    // refund stays pending, and the sweeper asks the PSP again with the same idempotency key.
    logger.error('Refund answered by the PSP but not recorded; the refund stays pending', {
      link_id: link.id,
      refund_id: refund.id,
      error,
    });
    // A write whose answer was lost may have landed: the merchant (and a replay of the key) is told what is stored.
    const stored = await deps.links.get(link.id, link.mode).catch(() => undefined);
    return stored?.refunds.find((candidate) => candidate.id === refund.id) ?? refund;
  }
}

/**
 * The single-use link's duplicate payment `paymentId`, from its stored payment, when no refund recorded it on the
 * link yet (`duplicateEntry`); undefined for any other payment, which `requestRefund` then judges.
 */
async function unrecordedDuplicate(
  deps: RefundDependencies,
  link: PaymentLink,
  paymentId: string | undefined,
): Promise<PaidPayment | undefined> {
  const reported = paymentId !== undefined && link.reported_payments.includes(paymentId);
  if (!reported || link.reusable || link.duplicate_payments[paymentId]) return undefined;
  const payment = await deps.payments.get(link.id, link.mode, paymentId);
  return payment && duplicateEntry(link, payment);
}

/**
 * Reserves the refund's amount on `link` as read, recording `duplicate` (a duplicate payment not on the link yet)
 * in the same write; true when the write landed. A write whose answer was lost is looked up: if the refund is on
 * the link, it was reserved (asking the PSP now is what a retry would do anyway).
 */
async function reserve(
  deps: RefundDependencies,
  read: PaymentLink,
  refund: Refund,
  duplicate: PaidPayment | undefined,
): Promise<boolean> {
  const link = duplicate ? withDuplicate(read, duplicate) : read;
  const payment = paidPayment(link, refund.payment_id);
  if (!payment) throw new NotFoundError(`No payment ${refund.payment_id} of ${link.id} to refund.`);
  const limits = {
    paidMinor: paymentAmountMinor(link, payment),
    refundMinor: toMinorUnits(refund.amount),
    maxRefunds: MAX_REFUNDS_PER_LINK,
    checkAt: firstRefundCheckAt(deps.now()),
    duplicate,
  };
  try {
    return await deps.ledger.reserve(read, refund, limits);
  } catch (error) {
    const current = await deps.links.get(link.id, link.mode).catch(() => undefined);
    if (current?.refunds.some((candidate) => candidate.id === refund.id)) return true;
    throw error;
  }
}

/**
 * Records what the PSP said of a refund, at once, in its notification or to the sweeper: a final outcome settles
 * it with its webhook, once however many copies race; a pending one keeps the PSP's reference. Returns the
 * refund as stored then.
 */
export async function recordRefundOutcome(
  deps: RefundRecordDependencies,
  linkId: string,
  mode: Mode,
  refundId: string,
  outcome: RefundOutcome,
): Promise<Refund> {
  const load = async () => {
    const link = await deps.links.get(linkId, mode);
    if (!link) throw new NotFoundError(`No payment link ${linkId}.`);
    return link;
  };
  if (outcome.status === 'pending') {
    const link = await load();
    const change = settleRefund(link, refundId, outcome, deps.now());
    if (change?.kind !== 'reference') return refundOf(link, refundId);
    const withReference = refundOf(change.link, refundId);
    // Conditioned on the refund, not on the link's version, which the link's other refunds move meanwhile.
    const stored = await deps.ledger.recordReference(link, withReference).catch((error: unknown) => {
      // Only the PSP's reference is lost: the refund stays pending either way.
      logger.warn('Refund reference not stored', { link_id: linkId, refund_id: refundId, error });
      return false;
    });
    // Not stored: answered as it stands (settled meanwhile, or still without the reference).
    return stored ? withReference : refundOf(await load(), refundId);
  }
  const link = await load();
  const change = settleRefund(link, refundId, outcome, deps.now());
  if (change?.kind !== 'settled') return refundOf(link, refundId);
  const transition = withEventCheckoutUrl(change.transition, deps.checkoutBase);
  if (!(await deps.ledger.commitSettlement(transition, change.refund, change.from))) {
    return refundOf(await load(), refundId); // settled meanwhile by another copy of the same outcome
  }
  await publishCommitted(deps.queue, transition.event);
  return change.refund;
}

/**
 * The refund sweeper, for refunds whose outcome the PSP has not told us (docs/webhooks.md#refunds): for each link
 * whose check is due, asks the PSP about each pending refund (or asks for it again, when the PSP never answered)
 * and records the answer as a notification would; then schedules the link's next check, later each time, or
 * takes it off the list once nothing is pending. A link that fails is logged and left for the next run.
 */
export async function checkPendingRefunds(
  deps: RefundDependencies,
  batchSize: number,
  hasTimeLeft: () => boolean = () => true,
): Promise<{ checked: number; failed: number }> {
  const due = await deps.ledger.dueForCheck(deps.now(), batchSize);
  let checked = 0;
  let failed = 0;
  for (const { id, mode } of due) {
    if (!hasTimeLeft()) break;
    // A link that cannot be read (docs/data-model.md#an-item-that-does-not-decode) fails alone, not the run.
    const done = await checkRefundsOfLink(deps, id, mode, hasTimeLeft).catch((error: unknown) => {
      logger.error('Could not check the pending refunds of a link', { link_id: id, error });
      return false;
    });
    if (done) checked++;
    else failed++;
  }
  return { checked, failed };
}

/**
 * Asks about each of the link's pending refunds while time is left, then moves its next check (the refunds not
 * reached are asked about then); false when any step failed.
 */
async function checkRefundsOfLink(
  deps: RefundDependencies,
  linkId: string,
  mode: Mode,
  hasTimeLeft: () => boolean,
): Promise<boolean> {
  let succeeded = true;
  const link = await deps.links.get(linkId, mode);
  if (!link) return true;
  for (const refund of pendingRefunds(link)) {
    if (!hasTimeLeft()) break;
    try {
      const outcome = await askPspAbout(deps, link, refund);
      if (outcome) await recordRefundOutcome(deps, link.id, link.mode, refund.id, outcome);
    } catch (error) {
      succeeded = false;
      logger.error('Could not check a pending refund', { link_id: link.id, refund_id: refund.id, error });
    }
  }
  const current = await deps.links.get(linkId, mode);
  const next = current && afterRefundCheck(current, deps.now());
  if (current && next) {
    // Lost to a concurrent write: the check stays due, and the next run looks again.
    await deps.links.update(current, next).catch((error: unknown) => {
      if (!(error instanceof ConcurrentModificationError)) throw error;
    });
  }
  return succeeded;
}

/** What the PSP says of a pending refund now; undefined when it must not be asked. */
async function askPspAbout(
  deps: RefundDependencies,
  link: PaymentLink,
  refund: Refund,
): Promise<RefundOutcome | undefined> {
  if (refund.provider_reference) return deps.refunds.refundStatus(link, refund);
  const outcome = await deps.refunds.refundAgain(link, refund, deps.now());
  if (outcome) return outcome;
  putMetrics({ RefundsStuck: 1 });
  logger.error('A refund the PSP never acknowledged can no longer be asked for safely: check it at the PSP', {
    link_id: link.id,
    refund_id: refund.id,
    connection_id: paidPayment(link, refund.payment_id)?.connection_id,
  });
  return undefined;
}

function refundOf(link: PaymentLink, refundId: string): Refund {
  const refund = link.refunds.find((candidate) => candidate.id === refundId);
  if (!refund) throw new NotFoundError(`No refund ${refundId}.`);
  return refund;
}

/** `GET /v1/payment-links/{id}/refunds`: the link's refunds, newest first. */
export async function listRefunds(
  deps: LinkDependencies,
  principal: Principal,
  linkId: string,
): Promise<Refund[]> {
  const link = await getPaymentLink(deps, principal, linkId);
  return [...link.refunds].reverse();
}
