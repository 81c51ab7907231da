import { type AmountDue, amountDue } from '../amount.ts';
import type { BuyerReferences } from '../buyer-references.ts';
import { resolveLocale } from '../locale.ts';
import type { Amount } from '../money.ts';
import { effectiveStatus, type PaymentLink } from '../payment-link.ts';
import type { PostedForm } from './buyer-answers.ts';
import type { FormTables } from './form-tables.ts';
import { isPreviewRequest } from './preview.ts';
import { type PostedAnswers, readPosted } from './questions.ts';
import type { CheckoutView } from './views.ts';

/** A request to the checkout page (`GET` or `POST {checkout_base}/{id}`), as the page read it. */
export interface CheckoutRequest {
  id: string;
  method: string;
  headers: Record<string, string | undefined>;
  /**
   * The buyer asked to pay with another payment provider (`?via=next`; the page never names a connection).
   * Honoured only after an attempt that ended unpaid (docs/checkout.md).
   */
  via?: string | undefined;
  /** The buyer came back from the PSP without paying (`?canceled=1`, our cancel address). */
  returned?: boolean | undefined;
  /**
   * The amount the buyer typed on our page (`POST {checkout_base}/{id}`, a link with `amount_range`), as typed:
   * read in the page's locale (docs/checkout.md#buyer-chosen-amounts). Undefined: a visit (GET).
   */
  amount?: string | undefined;
  /**
   * The "before you pay" form as posted (docs/checkout.md#buyer-details): custom fields, quantities, details.
   * Undefined: not posted (a visit, or the amount form alone).
   */
  form?: PostedForm | undefined;
  /** On a reusable link: the payment the buyer's cookie names, their last attempt (docs/checkout.md#reusable-links). */
  buyerPayment?: string | undefined;
  /** The address the request came from: a buyer without a cookie is known by it (`clientKey`). */
  sourceAddress: string;
  /**
   * A form another site sent (docs/security.md#checkout-sessions): shown as a preview, so that no other site can
   * open a session for a buyer or choose its amount.
   */
  foreign?: boolean | undefined;
  /**
   * What the link's address said of the buyer (docs/api.md#buyer-references), well formed: carried to the payment
   * a new session opens and to its PSP.
   */
  references?: BuyerReferences | undefined;
}

/** An open link a buyer visits, in their locale, with the amount a new session would charge (if known yet). */
export interface Visit {
  link: PaymentLink;
  locale: string;
  /** The buyer-chosen amount read (a range link), for the form read again as the routed PSPs need it. */
  due?: AmountDue | undefined;
  amount: Amount | undefined;
  /** The answers posted and accepted, carried to the session; undefined while the page must still ask them. */
  answered?: PostedAnswers | undefined;
  /** The link may ask the buyer first and nothing was posted: the amount waits on what the page asks. */
  unanswered?: boolean;
}

/**
 * The link as a round of the checkout reads it (`link`, undefined when there is none), or the page that needs no
 * session at all: unknown, paid, over, a preview (or a form another site sent), or a buyer-chosen amount or
 * answers that are refused before anything else is read or opened. `tables`: loaded when the posted form may
 * answer a phone number or an address (`readingNeedsTables`).
 */
export function checkoutVisit(
  link: PaymentLink | undefined,
  request: CheckoutRequest,
  now: Date,
  tables?: FormTables,
): Visit | CheckoutView {
  if (!link) return { kind: 'not_found' };
  const status = effectiveStatus(link, now);
  if (status === 'paid') return { kind: 'paid', link };
  if (status === 'canceled' || status === 'expired' || status === 'completed') {
    return { kind: 'gone', link, status };
  }
  if (request.foreign || isPreviewRequest(request.method, request.headers)) return { kind: 'preview', link };
  const locale = resolveLocale(link.locale, request.headers['accept-language']);
  const due = request.amount === undefined ? undefined : amountDue(link, { amount: request.amount, locale });
  const posted = readPosted(link, due, request.form, tables);
  if ('refused' in posted) return { kind: 'ask', link, ...posted.refused, entered: request.amount };
  // What a new session charges (docs/orchestration.md#payments): undefined while the buyer has not chosen.
  return { link, locale, due, ...posted };
}
