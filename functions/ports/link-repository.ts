import type { Transition } from '../domain/link-events.ts';
import type { LinkFilter, LinkPlace, PaymentLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';

/** Persistence of payment links and of the events their transitions emit. */
export interface LinkRepository {
  /**
   * Stores a new link unless its id is taken, and then answers the link stored under it, unchanged. A random id
   * is never taken; an id derived from an `Idempotency-Key` is when the key created its link already.
   */
  create(link: PaymentLink): Promise<PaymentLink | undefined>;
  /**
   * The link with this id in this mode, whatever its account (callers check tenancy), or undefined; also for a
   * string that is not shaped like a link id (`isId('pl', id)`).
   */
  get(id: string, mode: Mode): Promise<PaymentLink | undefined>;
  /**
   * The links of these ids in this mode, whatever their account (callers check tenancy), read together (one
   * BatchGetItem per 100): for lists that show many links' fields, the books' exports. Ids without a link are
   * left out.
   */
  getMany(ids: readonly string[], mode: Mode): Promise<PaymentLink[]>;
  /**
   * Stores `transition.event`, then `transition.after` on condition that the stored link is still at
   * `transition.before.version` (the commit point: the link then names the event). Throws
   * `ConcurrentModificationError` when another writer got there first; the event is then an orphan.
   */
  commit(transition: Transition): Promise<void>;
  /**
   * Stores the link's new PSP checkout session (`after`, one version later than `before`) on condition that the
   * stored link is still at `before.version`, so it can never overwrite a transition. Throws
   * `ConcurrentModificationError` when another writer got there first.
   */
  saveSession(before: PaymentLink, after: PaymentLink): Promise<void>;
  /**
   * A buyer's session was opened on the reusable link (its payment recorded): moves the link's version on, on
   * condition that the link is still open but whatever its version, so that buyers opening sessions at once never
   * conflict, while a cancel or expiry that read the link before fails its write and reads it (and the new
   * payment) again. Throws `ConcurrentModificationError` when the link is no longer open.
   */
  noteSession(link: PaymentLink): Promise<void>;
  /**
   * Takes the open link's place `slot` for `place` (functions/domain/link-places.ts) on condition that it still
   * holds what the decision read (`read`: nothing, or that same holder and `until`), and moves the link's version
   * on, so that a write of the whole link read before cannot drop the place. False when the place changed or the
   * link is no longer open: nothing was written.
   */
  holdPlace(link: PaymentLink, slot: number, read: LinkPlace | null, place: LinkPlace): Promise<boolean>;
  /**
   * The opening that holds place `slot` (`holder`) hands it to its session's payment (`place`), on condition that
   * it still holds it and the link is still open; moves the version on, as `noteSession` does, so that a cancel or
   * expiry that read the link before reads it and the new payment again. Throws `ConcurrentModificationError`
   * otherwise.
   */
  keepPlace(link: PaymentLink, slot: number, holder: string, place: LinkPlace): Promise<void>;
  /** Frees place `slot` if `holder` still holds it (an opening that opened nothing); otherwise does nothing. */
  releasePlace(link: PaymentLink, slot: number, holder: string): Promise<void>;
  /**
   * Stores the merchant's changes to an open link (`after`, one version later than `before`, see `update` in
   * functions/domain/payment-link.ts) on condition that the stored link is still at `before.version`, so a
   * concurrent payment, cancel or expiry is never lost or undone. Throws `ConcurrentModificationError` when
   * another writer got there first.
   */
  update(before: PaymentLink, after: PaymentLink): Promise<void>;
  /**
   * One page of a tenant's links, newest first. `after` is the position (see `linkPosition`) of the last link
   * of the previous page. The filter keeps the links `matchesFilter` keeps at `now` (an open link past its
   * `expires_at` is `expired`). `next` is set when more links may follow.
   */
  list(query: LinkListQuery): Promise<LinkPage>;
  /** Open links whose `expires_at` is at or before `now` (the sweeper's work list), at most `limit`. */
  dueForExpiry(now: Date, limit: number): Promise<{ id: string; mode: Mode }[]>;
}

export interface LinkListQuery extends LinkFilter {
  account: string;
  mode: Mode;
  limit: number;
  after?: string | undefined;
  now: Date;
}

export interface LinkPage {
  links: PaymentLink[];
  /** Position of the last link returned (or evaluated) when more may follow. */
  next: string | undefined;
}

/** A link's place in its tenant's listing: its gsi1 sort key, `<created_at>#<id>`. */
export const linkPosition = (link: Pick<PaymentLink, 'created_at' | 'id'>) => `${link.created_at}#${link.id}`;
