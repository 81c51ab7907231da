import type { PaymentLink, Transition } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';

/** Persistence of payment links and of the events their transitions emit. */
export interface LinkRepository {
  /** Stores a new link; ids are random, so a collision is an error, never an overwrite. */
  create(link: PaymentLink): Promise<void>;
  /** The link with this id in this mode, whatever its account (callers check tenancy), or undefined. */
  get(id: string, mode: Mode): Promise<PaymentLink | undefined>;
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
}
