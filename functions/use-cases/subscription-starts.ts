import type { PspConnection } from '../domain/connection.ts';
import type { MandateRef } from '../domain/mandates.ts';
import { type Payment, paymentAmount, toPaymentResource } from '../domain/payment.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { endedUnpaid, newSubscription, subscriptionIdOf } from '../domain/subscription.ts';
import { withEvents } from '../domain/subscription-events.ts';
import { recovered, started } from '../domain/subscription-transitions.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import { canHoldMandates, type Psp, PspOutageError, type PspSessionStatus } from '../ports/psp.ts';
import { applyChange, publishEvents, type SubscriptionChangeDependencies } from './subscription-changes.ts';

/**
 * What a succeeded payment of a link that opens a mandate does (docs/subscriptions.md#starting): a subscription
 * link's starts a subscription, an update link's pays the period being collected and pins the subscription to the
 * new mandate. Called by `recordSessionStatus` (./payments.ts) once the link took the payment and before the payment
 * is stored succeeded, so that until this is done the payment stays pending and its notification, the sweeper or
 * the buyer's return records it again: a subscription is never lost, and, named by the payment, never made twice.
 */
export interface MandatePayments {
  paid(
    connection: PspConnection,
    link: PaymentLink,
    payment: Payment,
    status: PspSessionStatus,
  ): Promise<void>;
}

export type MandatePaymentDependencies = SubscriptionChangeDependencies & {
  links: Pick<LinkRepository, 'get'>;
  psps: { adapter(connection: PspConnection): Promise<Psp> };
  /**
   * Refunds an update link's payment that paid nothing (its subscription ended first: ./unwanted-payments.ts).
   * Absent in the checkout page, whose cold start carries no refunds (docs/subscriptions.md#update-links): the
   * PSP's notification of the same payment, recorded by a function that refunds, refunds it.
   */
  refundUnwanted?: (link: PaymentLink, payment: Payment) => Promise<void>;
};

export function mandatePayments(deps: MandatePaymentDependencies): MandatePayments {
  return {
    async paid(connection, link, payment, status) {
      const current = await deps.links.get(link.id, link.mode);
      // A duplicate payment (a second one of a single-use link, one beyond a reusable link's limit) starts nothing.
      if (!current || !tookPayment(current, payment.id)) return;
      if (current.recurring) await start(deps, connection, current, payment, status);
      else if (current.subscription_update) await recover(deps, connection, current, payment, status);
    },
  };
}

/** Whether the link counts this payment as its own (not as a duplicate it reported). */
function tookPayment(link: PaymentLink, paymentId: string): boolean {
  if (!link.reusable) return link.payment?.id === paymentId;
  return link.paid_payments[paymentId] !== undefined && !link.reported_payments.includes(paymentId);
}

/** The mandate the payment's session opened; a PSP that has not confirmed it yet is asked again later. */
async function mandateOf(
  deps: MandatePaymentDependencies,
  connection: PspConnection,
  status: PspSessionStatus,
): Promise<MandateRef | undefined> {
  const psp = await deps.psps.adapter(connection);
  if (!canHoldMandates(psp)) return undefined;
  const opened = await psp.mandateOf({ id: status.id, paymentReference: status.paymentReference });
  if (opened.state === 'pending') throw new PspOutageError('The PSP has not confirmed the mandate yet.');
  if (opened.state === 'none') {
    logger.error('A paid subscription payment opened no mandate: no subscription', {
      connection_id: connection.id,
      reason: opened.reason,
    });
    return undefined;
  }
  return opened.mandate;
}

async function start(
  deps: MandatePaymentDependencies,
  connection: PspConnection,
  link: PaymentLink,
  payment: Payment,
  status: PspSessionStatus,
): Promise<void> {
  const recurring = link.recurring;
  const id = subscriptionIdOf(payment.id);
  if (!recurring || link.amount === null || (await deps.subscriptions.get(id, link.mode))) return;
  const mandate = await mandateOf(deps, connection, status);
  if (!mandate) return;
  const now = deps.now();
  const subscription = newSubscription(
    {
      id,
      link: { ...link, amount: link.amount, recurring },
      payment: { id: payment.id, client_reference_id: payment.client_reference_id ?? null },
      mandate,
    },
    now,
  );
  const committed = withEvents(started(subscription), deps.checkoutBase, now);
  if (await deps.subscriptions.create(committed)) {
    putMetrics({ SubscriptionsStarted: 1 }, { provider: connection.provider });
    await publishEvents(deps.queue, committed);
  }
}

/**
 * The update link's payment: the subscription's unpaid period paid, the subscription pinned to the new mandate. A
 * subscription that ended with that period unpaid (`endedUnpaid`: canceled before the buyer paid, or while this
 * payment was under way) takes nothing from it: it is refunded in full. Whether the subscription took the payment is
 * decided by its conditional write (`recovered`), so a payment is never both kept and refunded.
 */
async function recover(
  deps: MandatePaymentDependencies,
  connection: PspConnection,
  link: PaymentLink,
  payment: Payment,
  status: PspSessionStatus,
): Promise<void> {
  const update = link.subscription_update;
  if (!update) return;
  const waiting = await deps.subscriptions.get(update.subscription_id, link.mode);
  if (waiting && endedUnpaid(waiting, update.period)) return leftUnwanted(deps, link, payment);
  const mandate = await mandateOf(deps, connection, status);
  if (!mandate) return;
  const resource = toPaymentResource({ ...payment, amount: paymentAmount(payment, link) }, link);
  const { changed, subscription } = await applyChange(
    deps,
    { id: update.subscription_id, mode: link.mode },
    (current, now) => recovered(current, { period: update.period, mandate, payment: resource }, now),
  );
  if (changed) return;
  if (endedUnpaid(subscription, update.period)) return leftUnwanted(deps, link, payment);
  if (subscription.status !== 'active') {
    logger.warn('An update link was paid that its subscription no longer waits for', {
      subscription_id: subscription.id,
      link_id: link.id,
      payment_id: payment.id,
    });
  }
}

/** An update link's payment that paid nothing: refunded where this function refunds, else left to one that does. */
async function leftUnwanted(
  deps: MandatePaymentDependencies,
  link: PaymentLink,
  payment: Payment,
): Promise<void> {
  if (deps.refundUnwanted) return deps.refundUnwanted(link, payment);
  logger.info(
    'An update link was paid after its subscription ended: its refund is left to the notification',
    {
      subscription_id: link.subscription_update?.subscription_id,
      link_id: link.id,
      payment_id: payment.id,
    },
  );
}
