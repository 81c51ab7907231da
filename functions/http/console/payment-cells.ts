import { type BuyerDetails, isErased, type PaymentBuyer, type PostalAddress } from '../../domain/buyer.ts';
import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { fromMinorUnits, toMinorUnits } from '../../domain/money.ts';
import type { PaymentResource } from '../../domain/payment.ts';
import { formatAmount, type Html, html } from '../html.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE } from './page.ts';

/** The cells a payment shows wherever the console lists it: the account's payments and a link's. */

const addressText = (address: PostalAddress) =>
  [address.line1, address.line2, address.postal_code, address.city, address.state, address.country]
    .filter(Boolean)
    .join(', ');

/** A payment's buyer, to those whose role may read personal data (docs/console.md#personal-data). */
export function buyerText(
  buyer: PaymentBuyer | null,
  session: ConsoleSession,
  language: PageLanguage,
): Html | string {
  const words = consoleMessages(language).buyer;
  if (!buyer) return '–';
  if (isErased(buyer)) return words.erasedOn(buyer.erased_at.slice(0, 10));
  if (!mayPerform(session.role, 'buyer.read')) return words.hidden;
  const details: BuyerDetails = buyer;
  const parts = [
    details.name,
    details.email,
    details.phone,
    details.billing_address && words.billing(addressText(details.billing_address)),
    details.shipping_address && words.shipping(addressText(details.shipping_address)),
  ].filter((part): part is string => Boolean(part));
  return parts.length ? html`${parts.map((part) => html`${part}<br>`)}` : '–';
}

/** The answers and quantities of a payment, as the buyer gave them. */
export function answersText(payment: PaymentResource, language: PageLanguage): Html | string {
  const answers = (payment.custom_fields ?? []).map((answer) => `${answer.label}: ${answer.value}`);
  const quantities = payment.quantities?.length
    ? [consoleMessages(language).buyer.quantities(payment.quantities.join(', '))]
    : [];
  const all = [...answers, ...quantities];
  return all.length ? html`${all.map((text) => html`${text}<br>`)}` : '–';
}

/** A payment's status, with what its refunds left of it: "succeeded, partly refunded, €39.90 left". */
export function statusText(payment: PaymentResource, language: PageLanguage): string {
  const words = consoleMessages(language).books;
  if (payment.refund_status === 'none') return payment.status;
  if (payment.refund_status === 'full') return `${payment.status}, ${words.refunded}`;
  const { currency } = payment.amount;
  const left = toMinorUnits(payment.amount) - toMinorUnits(payment.amount_refunded);
  const amount = { value: fromMinorUnits(left, currency), currency };
  return `${payment.status}, ${words.partlyRefunded(formatAmount(amount, language))}`;
}

export function eraseLink(payment: PaymentResource, session: ConsoleSession, language: PageLanguage) {
  if (!payment.buyer || isErased(payment.buyer) || !mayPerform(session.role, 'buyer.erase')) return undefined;
  return html`<a href="${CONSOLE_BASE}/payments/${payment.id}/erase">${consoleMessages(language).buyer.erase}</a>`;
}
