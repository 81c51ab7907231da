import { ConcurrentModificationError, NotFoundError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Amount } from '../domain/money.ts';
import { toMinorUnits } from '../domain/money.ts';
import type { PaymentLink, Refund } from '../domain/payment-link.ts';
import type { Mode, Principal } from '../domain/principal.ts';
import { MAX_REFUNDS_PER_LINK, type RefundOutcome, requestRefund, settleRefund } from '../domain/refund.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import {
  getPaymentLink,
  type LinkDependencies,
  publishCommitted,
  withEventCheckoutUrl,
} from './payment-links.ts';

/** Refunds at the PSP that took a link's payment (implemented by the PSP selection, which knows the connection). */
export interface PaymentRefunds {
  /** Asks the PSP to refund; what it says at once. Throws when it could not be asked (the refund stays pending). */
  refund(link: PaymentLink, refund: Refund): Promise<RefundOutcome>;
}

export type RefundDependencies = LinkDependencies & {
  queue: EventQueue;
  refunds: PaymentRefunds;
  checkoutBase: string;
};

const MAX_RESERVE_ATTEMPTS = 5;

/**
 * `POST /v1/payment-links/{id}/refunds`: reserves the amount on the link (a write conditioned on what remains,
 * so concurrent refunds never add up past the paid amount), then asks the PSP that took the payment and records
 * what it said. A PSP that cannot be reached leaves the refund `pending` (201), its amount still reserved
 * (docs/webhooks.md#refunds says what is not yet done for such refunds).
 */
export async function createRefund(
  deps: RefundDependencies,
  principal: Principal,
  linkId: string,
  requested: Amount | undefined,
): Promise<Refund> {
  let link: PaymentLink;
  let refund: Refund;
  for (let attempt = 1; ; attempt++) {
    link = await getPaymentLink(deps, principal, linkId);
    refund = requestRefund(link, requested, newId('re'), deps.now());
    const reserved = await deps.links.reserveRefund(link, refund, {
      paidMinor: toMinorUnits(link.amount),
      refundMinor: toMinorUnits(refund.amount),
      maxRefunds: MAX_REFUNDS_PER_LINK,
    });
    if (reserved) break;
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
  return recordRefundOutcome(deps, link.id, link.mode, refund.id, outcome);
}

/**
 * Records what the PSP said of a refund: a final outcome settles
 * it with its webhook, once however many copies race; a pending one keeps the PSP's reference. Returns the
 * refund as stored then.
 */
export async function recordRefundOutcome(
  deps: RefundDependencies,
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
    if (change?.kind === 'reference') {
      await deps.links.update(link, change.link).catch((error: unknown) => {
        // Only the PSP's reference is lost: the refund stays pending either way.
        logger.warn('Refund reference not stored', { link_id: linkId, refund_id: refundId, error });
      });
      return refundOf(change.link, refundId);
    }
    return refundOf(link, refundId);
  }
  const link = await load();
  const change = settleRefund(link, refundId, outcome, deps.now());
  if (change?.kind !== 'settled') return refundOf(link, refundId);
  const transition = withEventCheckoutUrl(change.transition, deps.checkoutBase);
  if (!(await deps.links.commitRefundSettlement(transition, change.refund))) {
    return refundOf(await load(), refundId); // settled meanwhile by another copy of the same outcome
  }
  await publishCommitted(deps.queue, transition.event);
  return change.refund;
}

function refundOf(link: PaymentLink, refundId: string): Refund {
  const refund = link.refunds?.find((candidate) => candidate.id === refundId);
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
  return [...(link.refunds ?? [])].reverse();
}
