import { createHash } from 'node:crypto';
import type { BooksFilter } from '../domain/books.ts';
import { InvalidStateError } from '../domain/errors.ts';
import type { Payment } from '../domain/payment.ts';
import type { Principal } from '../domain/principal.ts';
import { randomBase62 } from '../domain/random.ts';
import {
  type CancellationReason,
  isTerminal,
  type Subscription,
  type SubscriptionStatus,
} from '../domain/subscription.ts';
import { cancel, type SubscriptionChanges, update } from '../domain/subscription-transitions.ts';
import type { CancelLinkStore, SubscriptionPage } from '../ports/subscription-repository.ts';
import { applyChange, getSubscription, type SubscriptionChangeDependencies } from './subscription-changes.ts';
import { closeUpdateLinkOf, type SubscriptionEndDependencies } from './subscription-endings.ts';

/** The merchant's and the buyer's side of subscriptions (docs/api.md#subscriptions): reads, cancels, changes. */

/** What a listing asks: the books' filters that apply to subscriptions, a page size and a cursor's position. */
export interface SubscriptionsRequest
  extends Pick<BooksFilter, 'createdGte' | 'createdLt' | 'linkId' | 'connectionId'> {
  status?: string | undefined;
  limit: number;
  after?: string | undefined;
}

/** `GET /v1/subscriptions`: a page of the (account, mode)'s subscriptions, newest first. */
export function listSubscriptions(
  deps: Pick<SubscriptionChangeDependencies, 'subscriptions'>,
  principal: Principal,
  request: SubscriptionsRequest,
): Promise<SubscriptionPage> {
  return deps.subscriptions.list({
    account: principal.account,
    mode: principal.mode,
    limit: request.limit,
    after: request.after,
    status: request.status as SubscriptionStatus | undefined,
    linkId: request.linkId,
    connectionId: request.connectionId,
    createdGte: request.createdGte,
    createdLt: request.createdLt,
  });
}

/**
 * The caller's subscription and its renewals' payments, newest first (the console's subscription page): another
 * account's or the other mode's is `not_found` before its renewals are read.
 */
export async function subscriptionWithRenewals(
  deps: Pick<SubscriptionChangeDependencies, 'subscriptions'>,
  principal: Principal,
  id: string,
): Promise<{ subscription: Subscription; renewals: Payment[] }> {
  const subscription = await getSubscription(deps, principal, id);
  return { subscription, renewals: await deps.subscriptions.renewalsOf(id, principal.mode) };
}

/**
 * `POST /v1/subscriptions/{id}/cancel` (the merchant) or a cancel link (the buyer). A subscription canceled while a
 * period is collected then cancels its update link (`closeUpdateLinkOf`; a cancel repeated tries again), and
 * answers the same whatever that link's PSP says.
 */
export async function cancelSubscription(
  deps: SubscriptionEndDependencies,
  principal: Principal,
  id: string,
  options: { atPeriodEnd: boolean; reason: CancellationReason },
): Promise<Subscription> {
  const found = await getSubscription(deps, principal, id);
  const { subscription } = await applyChange(deps, found, (current, now) => cancel(current, options, now));
  return closeUpdateLinkOf(deps, subscription);
}

/** `PATCH /v1/subscriptions/{id}`. */
export async function updateSubscription(
  deps: SubscriptionChangeDependencies,
  principal: Principal,
  id: string,
  changes: SubscriptionChanges,
): Promise<Subscription> {
  const found = await getSubscription(deps, principal, id);
  const { subscription } = await applyChange(deps, found, (current, now) => update(current, changes, now));
  return subscription;
}

/** How long a buyer's cancel link works. */
export const CANCEL_LINK_LIFETIME_MS = 30 * 86_400_000;

const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A cancel link's token: 190 bits, base62, in the link's path; only its SHA-256 is stored. */
const TOKEN_LENGTH = 32;
const TOKEN_PATTERN = /^[0-9A-Za-z]{32}$/;

/**
 * `POST /v1/subscriptions/{id}/cancel-link`: a page of ours where the buyer cancels the subscription once, without
 * signing in, within `CANCEL_LINK_LIFETIME_MS`. The merchant sends it to the buyer; it works once.
 */
export async function createCancelLink(
  deps: Pick<SubscriptionChangeDependencies, 'subscriptions' | 'now'> & { cancelLinks: CancelLinkStore },
  principal: Principal,
  id: string,
): Promise<{ token: string; subscription: Subscription; expires_at: string }> {
  const subscription = await getSubscription(deps, principal, id);
  if (isTerminal(subscription.status)) {
    throw new InvalidStateError(`A ${subscription.status} subscription cannot be canceled.`);
  }
  const now = deps.now();
  const token = randomBase62(TOKEN_LENGTH);
  const expires_at = new Date(now.getTime() + CANCEL_LINK_LIFETIME_MS).toISOString();
  await deps.cancelLinks.put({
    token_hash: tokenHash(token),
    subscription_id: subscription.id,
    account: subscription.account,
    mode: subscription.mode,
    expires_at,
    used_at: null,
    created_at: now.toISOString(),
  });
  return { token, subscription, expires_at };
}

export type BuyerCancelDependencies = SubscriptionEndDependencies & { cancelLinks: CancelLinkStore };

/**
 * What a cancel link's page shows: the subscription, and whether the link can still be used, was used by an
 * earlier request, or was used by this one (`canceled`).
 */
export type CancelLinkView =
  | { state: 'usable' | 'used' | 'canceled'; subscription: Subscription }
  | { state: 'expired' | 'not_found' };

/** The subscription a cancel link is for, as its page shows it (the page is seen before anything is canceled). */
export async function readCancelLink(
  deps: Pick<BuyerCancelDependencies, 'subscriptions' | 'cancelLinks' | 'now'>,
  token: string,
): Promise<CancelLinkView> {
  const link = TOKEN_PATTERN.test(token) ? await deps.cancelLinks.get(tokenHash(token)) : undefined;
  if (!link) return { state: 'not_found' };
  const subscription = await deps.subscriptions.get(link.subscription_id, link.mode);
  if (!subscription) return { state: 'not_found' };
  if (link.used_at !== null) return { state: 'used', subscription };
  if (Date.parse(link.expires_at) <= deps.now().getTime()) return { state: 'expired' };
  return { state: 'usable', subscription };
}

/**
 * The buyer cancels through the link: at the end of the period they paid (now, when it is past due), once. The
 * cancel comes first and the link is used after, so a link whose use could not be recorded stays usable, and a
 * second use finds the subscription already canceled: nothing happens twice.
 */
export async function cancelThroughLink(
  deps: BuyerCancelDependencies,
  token: string,
): Promise<CancelLinkView> {
  const view = await readCancelLink(deps, token);
  if (view.state !== 'usable') return view;
  const principal = { account: view.subscription.account, mode: view.subscription.mode };
  const subscription = isTerminal(view.subscription.status)
    ? view.subscription
    : await cancelSubscription(deps, principal, view.subscription.id, { atPeriodEnd: true, reason: 'buyer' });
  await deps.cancelLinks.use(tokenHash(token), deps.now());
  return { state: 'canceled', subscription };
}
