import {
  InvalidNotificationError,
  NotFoundError,
  PspNotConfiguredError,
  PspUnavailableError,
  ServiceError,
} from '../domain/errors.ts';
import { markPaid, type PaymentLink } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PspSessionStatus } from '../ports/psp.ts';
import { applyTransition } from './payment-links.ts';
import type { PspSelector } from './psp-selection.ts';

export interface NotificationDependencies {
  links: LinkRepository;
  psps: PspSelector;
  queue: EventQueue;
  now: () => Date;
  checkoutBase: string;
}

export type NotificationOutcome = 'paid' | 'already_paid' | 'ignored';

/**
 * `POST /psp/{provider}/notifications`. The unverified body only names the link, to find whose credentials
 * verify it; then the signature is checked, the session's true status fetched from the PSP, and a confirmed
 * payment recorded with `markPaid` through `applyTransition` (one transition and one event however many
 * copies of the notification race). Forged, foreign or malformed notifications throw a 4xx and change nothing.
 */
export async function handlePspNotification(
  deps: NotificationDependencies,
  provider: string,
  rawBody: string,
  headers: Record<string, string | undefined>,
): Promise<{ outcome: NotificationOutcome; linkId: string }> {
  const factory = deps.psps.factory(provider);
  if (!factory) throw new NotFoundError(`No payment provider ${provider}.`);
  const target = factory.locateNotification(rawBody);
  if (!target) throw new InvalidNotificationError(`Not a ${provider} notification about a payment link.`);
  const load = async (): Promise<PaymentLink> => {
    const link = await deps.links.get(target.linkId, target.mode);
    if (!link) throw new InvalidNotificationError('The notification names no known payment link.');
    return link;
  };
  const link = await load();
  if (factory.testModeOnly && link.mode !== 'test') {
    throw new InvalidNotificationError(`${provider} only serves test mode.`);
  }

  // A notification for a provider this (account, mode) has no credentials for is not genuine: 400, and the
  // same answer whatever the reason, so a forger learns nothing about the merchant's setup.
  const psp = await factory.create(link.account, link.mode).catch((error: unknown) => {
    if (error instanceof PspNotConfiguredError) throw new InvalidNotificationError();
    throw error;
  });
  const notification = await psp.verifyNotification(rawBody, headers);
  if (!notification.mayBePaid) return { outcome: 'ignored', linkId: link.id };

  let status: PspSessionStatus;
  try {
    status = await psp.retrieveSession(notification.sessionId);
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    logger.error('PSP session lookup failed', { provider, session_id: notification.sessionId, error });
    throw new PspUnavailableError(error); // a 5xx: the PSP retries later
  }
  if (status.linkId !== link.id) throw new InvalidNotificationError('The session belongs to another link.');
  if (!status.paid || !status.paymentReference) return { outcome: 'ignored', linkId: link.id };

  const payment = { provider, reference: status.paymentReference };
  const result = await applyTransition(
    { links: deps.links, now: deps.now, queue: deps.queue },
    load,
    (current, now) => markPaid(current, payment, deps.checkoutBase, now),
  );
  if (result.transition) putMetrics({ PaymentsSucceeded: 1 }, { provider });
  if (!result.transition && result.link.payment?.reference !== payment.reference) {
    logger.warn('A second payment was confirmed for a paid link', {
      link_id: link.id,
      provider,
      reference: payment.reference,
    });
  }
  return { outcome: result.transition ? 'paid' : 'already_paid', linkId: link.id };
}
