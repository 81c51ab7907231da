import type { Amount } from '../money.ts';
import type { PaymentLink, PspSession } from '../payment-link.ts';
import type { AskedForm } from './questions.ts';

/** The value of `?via=` on the "pay with another payment provider" link. */
export const VIA_ANOTHER_PROVIDER = 'next';

/** What the checkout page shows. */
export type CheckoutView =
  | { kind: 'not_found' }
  | { kind: 'paid'; link: PaymentLink }
  | { kind: 'gone'; link: PaymentLink; status: 'canceled' | 'expired' | 'completed' }
  /** A preview or prefetch: the page without a PSP session. */
  | { kind: 'preview'; link: PaymentLink }
  /** Forward to the PSP's page. */
  | { kind: 'forward'; link: PaymentLink; session: PspSession; pspOrigin: string }
  /**
   * The buyer is back after an attempt that ended unpaid: try again, or (`another`) pay with another payment
   * provider; no session is opened until they choose.
   */
  | { kind: 'choose'; link: PaymentLink; another: boolean; amount: Amount }
  /**
   * A buyer-chosen amount (`amount_range`): the form asks for it, again with `problem` when the amount the buyer
   * `entered` was refused (`not_payable`: within the range, but no connection serving the link can take it).
   */
  | {
      kind: 'ask';
      link: PaymentLink;
      problem?: 'missing' | 'invalid' | 'ambiguous' | 'out_of_range' | 'not_payable';
      entered?: string | undefined;
      /** The questions our page asks first (custom fields, quantities, buyer details), when it asks any. */
      form?: AskedForm | undefined;
    }
  /**
   * No session can be shown: every connection failed (or is down, or cannot take the amount), or an open
   * session could be neither ended nor shown. The link stays open; `retryAt` when it is known.
   */
  | { kind: 'unavailable'; link: PaymentLink; retryAt?: Date | undefined }
  /** Too many sessions were opened for this link lately (docs/security.md#checkout): try again at `retryAt`. */
  | { kind: 'throttled'; link: PaymentLink; retryAt: Date }
  /**
   * A reusable link whose payments and payable sessions reach `max_payments`: no place is left for now; one may
   * free up at `retryAt`, when another buyer's session expires unpaid.
   */
  | { kind: 'full'; link: PaymentLink; retryAt?: Date | undefined };
