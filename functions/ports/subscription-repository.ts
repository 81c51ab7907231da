import type { Payment } from '../domain/payment.ts';
import type { Mode } from '../domain/principal.ts';
import type { Subscription, SubscriptionStatus } from '../domain/subscription.ts';
import type { CommittedChange } from '../domain/subscription-events.ts';

/** What a listing of subscriptions keeps (docs/api.md#subscriptions): filters combine. */
export interface SubscriptionFilter {
  status?: SubscriptionStatus | undefined;
  linkId?: string | undefined;
  connectionId?: string | undefined;
  /** Created at or after (ISO 8601, as stored), and strictly before. */
  createdGte?: string | undefined;
  createdLt?: string | undefined;
}

export interface SubscriptionQuery extends SubscriptionFilter {
  account: string;
  mode: Mode;
  limit: number;
  /** A cursor's position (`<created_at>#<id>`): subscriptions strictly older. */
  after?: string | undefined;
}

export interface SubscriptionPage {
  subscriptions: Subscription[];
  /** The position to continue after when more may follow. */
  next: string | undefined;
}

/** A subscription's place in its tenant's listing: `<created_at>#<id>`. */
export const subscriptionPosition = (subscription: Pick<Subscription, 'created_at' | 'id'>): string =>
  `${subscription.created_at}#${subscription.id}`;

/**
 * Persistence of subscriptions, the events their changes emit, and their renewals' payments (docs/data-model.md#subscriptions).
 */
export interface SubscriptionRepository {
  /**
   * Stores a new subscription (`change.before` undefined) with its events unless one with its id exists; false
   * then, and nothing is written.
   */
  create(change: CommittedChange): Promise<boolean>;
  /** The subscription of this id in this mode, whatever its account (callers check tenancy), or undefined. */
  get(id: string, mode: Mode): Promise<Subscription | undefined>;
  /**
   * Stores `change.events`, then `change.after` on condition that the stored subscription is still at
   * `change.before.version` (the commit point: it then names the events). Throws `ConcurrentModificationError`
   * when another writer got there first; the events are then orphans that are never delivered.
   */
  commit(change: CommittedChange): Promise<void>;
  /** A page of a tenant's subscriptions, newest first, filtered within a read budget. */
  list(query: SubscriptionQuery): Promise<SubscriptionPage>;
  /** Subscriptions whose `due_at` is at or before `now` (the charge sweeper's list), at most `limit`. */
  due(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]>;
  /**
   * Stores a renewal's payment beside its subscription, in the account's books; a payment of that id stored
   * already (the same attempt recorded by a concurrent sweeper) is left as it is.
   */
  saveRenewal(payment: Payment): Promise<void>;
  /** The subscription's renewal payments, newest first. */
  renewalsOf(id: string, mode: Mode): Promise<Payment[]>;
}

/** A buyer's single-use cancel link (docs/subscriptions.md#cancel-links), found by the SHA-256 of its token. */
export interface CancelLink {
  token_hash: string;
  subscription_id: string;
  account: string;
  mode: Mode;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface CancelLinkStore {
  put(link: CancelLink): Promise<void>;
  get(tokenHash: string): Promise<CancelLink | undefined>;
  /** Marks it used, once: false when it was used already (or is unknown). */
  use(tokenHash: string, now: Date): Promise<boolean>;
}
