import { type BuyerDetails, isErased, type PaymentBuyer, type PostalAddress } from '../../domain/buyer.ts';
import { builtInSandbox } from '../../domain/connection.ts';
import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { Amount } from '../../domain/money.ts';
import { fromMinorUnits, toMinorUnits } from '../../domain/money.ts';
import type { PaymentResource } from '../../domain/payment.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ConnectionDirectory } from '../../ports/psp-connections.ts';
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

/** What the payment's refunds left of it. */
export function remainingOf(payment: Pick<PaymentResource, 'amount' | 'amount_refunded'>): Amount {
  const { currency } = payment.amount;
  const left = toMinorUnits(payment.amount) - toMinorUnits(payment.amount_refunded);
  return { value: fromMinorUnits(left, currency), currency };
}

/** A payment's status in words, with what its refunds left of it: "paid, partly refunded, €39.90 left". */
export function statusText(payment: PaymentResource, language: PageLanguage): string {
  const { books: words, status } = consoleMessages(language);
  const state = status.payment[payment.status];
  if (payment.refund_status === 'none') return state;
  if (payment.refund_status === 'full') return `${state}, ${words.refunded}`;
  return `${state}, ${words.partlyRefunded(formatAmount(remainingOf(payment), language))}`;
}

/** The path of a payment's own page, under its link's. */
export const paymentPath = (payment: { id: string; link_id: string }) =>
  `${CONSOLE_BASE}/links/${payment.link_id}/payments/${payment.id}`;

/** The names of the (account, mode)'s connections by id: tables show a connection by its name. */
export async function connectionNames(
  psps: { directory(account: string, mode: Principal['mode']): Promise<ConnectionDirectory> },
  principal: Principal,
): Promise<ReadonlyMap<string, string>> {
  const { connections } = await psps.directory(principal.account, principal.mode);
  // The built-in sandbox serves every account without being stored: it has a name all the same.
  const sandbox = builtInSandbox(principal.account, principal.mode);
  return new Map([
    [sandbox.id, sandbox.name],
    ...connections.map(({ connection }): [string, string] => [connection.id, connection.name]),
  ]);
}

/** A payment's connection as people know it: its name and provider; its id when it is gone. */
export const connectionText = (
  payment: Pick<PaymentResource, 'connection_id' | 'provider'>,
  names: ReadonlyMap<string, string>,
) => `${names.get(payment.connection_id) ?? payment.connection_id} (${payment.provider})`;

export function eraseLink(payment: PaymentResource, session: ConsoleSession, language: PageLanguage) {
  if (!payment.buyer || isErased(payment.buyer) || !mayPerform(session.role, 'buyer.erase')) return undefined;
  return html`<a href="${CONSOLE_BASE}/payments/${payment.id}/erase">${consoleMessages(language).buyer.erase}</a>`;
}
