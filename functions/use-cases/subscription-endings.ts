import { InvalidStateError, NotFoundError, PaymentUnderWayError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { dueStep, type Subscription } from '../domain/subscription.ts';
import { updateLinkClosed } from '../domain/subscription-transitions.ts';
import { logger } from '../logger.ts';
import { cancelPaymentLink, type LinkEndingDependencies } from './payment-links.ts';
import { applyChange, type SubscriptionChangeDependencies } from './subscription-changes.ts';

/**
 * A subscription that ends while a period is collected through its update link (docs/subscriptions.md#update-links)
 * cancels that link through the link's own cancel, which ends its PSP session by the one-payable-session rule
 * (docs/orchestration.md#one-payable-session). The subscription's end never waits on it: the subscription stays due
 * (`close_update_link`), and a link whose session its PSP cannot end yet is canceled again by the charge sweeper's
 * next run. A payment that still lands on it is refunded (./subscription-starts.ts).
 */

export type SubscriptionEndDependencies = SubscriptionChangeDependencies & LinkEndingDependencies;

/**
 * Cancels the update link of an ended subscription that is due for it, then marks it done; answers the subscription
 * as it is after, still due when the link is left for the next try.
 */
export async function closeUpdateLinkOf(
  deps: SubscriptionEndDependencies,
  subscription: Subscription,
): Promise<Subscription> {
  const step = dueStep(subscription);
  if (step.kind !== 'close_update_link') return subscription;
  if (!(await cancelUpdateLink(deps, subscription, step.link_id))) return subscription;
  const closed = await applyChange(deps, subscription, (current, now) => updateLinkClosed(current, now));
  return closed.subscription;
}

/**
 * Cancels an update link nobody is to pay any more; true once it can no longer be paid through us: canceled now or
 * before, or paid, expired or gone (its payment, its expiry sweeper take it from there). False when it stays open
 * for now (its PSP cannot end its session yet, or could not be asked, or a payment on it is still being collected:
 * docs/orchestration.md#money-under-way): logged, for the next try.
 */
export async function cancelUpdateLink(
  deps: LinkEndingDependencies,
  owner: Principal,
  linkId: string,
): Promise<boolean> {
  try {
    await cancelPaymentLink(deps, { account: owner.account, mode: owner.mode }, linkId);
    return true;
  } catch (error) {
    // Refused while a payment on it is collected (an `InvalidStateError` too): that payment's outcome comes first.
    const cannotBePaid = error instanceof InvalidStateError || error instanceof NotFoundError;
    if (cannotBePaid && !(error instanceof PaymentUnderWayError)) return true;
    logger.warn('The update link of an ended subscription stays open until the next try', {
      link_id: linkId,
      error,
    });
    return false;
  }
}
