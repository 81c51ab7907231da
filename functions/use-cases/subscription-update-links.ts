import { createHash } from 'node:crypto';
import { idFromBytes } from '../domain/ids.ts';
import type { Amount } from '../domain/money.ts';
import { newPaymentLink } from '../domain/payment-link.ts';
import type { Subscription } from '../domain/subscription.ts';
import { type CollectionSettings, givesUpAt } from '../domain/subscription-schedule.ts';
import { chargeDueAt } from '../domain/subscription-transitions.ts';
import type { LinkRepository } from '../ports/link-repository.ts';

/**
 * Update links (docs/subscriptions.md#update-links): when a period cannot be collected from the mandate (a hard
 * decline, authentication asked, or retries over on an account that leaves subscriptions past due), the buyer is
 * sent a payment link of the period's amount whose payment opens a new mandate, at any connection that holds
 * mandates; its success pays the period and pins the subscription there (./subscription-starts.ts).
 */

export interface UpdateLinkDependencies {
  links: Pick<LinkRepository, 'create' | 'get'>;
  now: () => Date;
}

/** The update link of a subscription's period: derived, so that every run that needs it names the same link. */
export function updateLinkIdOf(subscriptionId: string, period: number): string {
  return idFromBytes('pl', createHash('sha256').update(`update-link\0${subscriptionId}\0${period}`).digest());
}

/**
 * The period's update link, made if it is not there yet (a conditional create: concurrent runs make one). On an
 * account that cancels once retries are over, it expires then: the subscription it would pay is gone.
 */
export async function updateLinkFor(
  deps: UpdateLinkDependencies,
  subscription: Subscription,
  unpaid: { period: number; amount: Amount },
  settings: CollectionSettings,
): Promise<string> {
  const id = updateLinkIdOf(subscription.id, unpaid.period);
  const now = deps.now();
  const firstFailedAt =
    subscription.dunning?.period === unpaid.period
      ? new Date(subscription.dunning.first_failed_at)
      : chargeDueAt(subscription, unpaid.period);
  const endsAt = givesUpAt(settings.subscription_retry_days, firstFailedAt);
  const original = await deps.links.get(subscription.link_id, subscription.mode);
  const link = newPaymentLink(
    { account: subscription.account, mode: subscription.mode },
    {
      amount: unpaid.amount,
      description: subscription.description,
      metadata: { subscription_id: subscription.id },
      redirect_url: original?.redirect_url ?? null,
      locale: original?.locale ?? null,
      expires_at:
        settings.subscription_after_retries === 'cancel' && endsAt.getTime() > now.getTime()
          ? endsAt.toISOString()
          : null,
      subscription_update: { subscription_id: subscription.id, period: unpaid.period },
    },
    now,
  );
  await deps.links.create({ ...link, id });
  return id;
}
