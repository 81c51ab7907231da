import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { type Amount, toMinorUnits } from '../../domain/money.ts';
import type { PaymentResource } from '../../domain/payment.ts';
import { REFUND_REASONS, type RefundReason } from '../../domain/payment-link.ts';
import { randomBase62 } from '../../domain/random.ts';
import { formatAmount, Html, html } from '../html.ts';
import { typedDecimal } from './link-form.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField } from './page.ts';
import { paymentPath, remainingOf } from './payment-cells.ts';

/**
 * The refund dialog of a payment's page (docs/console.md#refunds): the amount (what remains, written as the page's
 * language writes it) and a reason from a list; then a confirmation that says back the amount as it was read and
 * what will remain, whose button makes the refund through the API's schema and use case.
 */

/** What the dialog's form asked, as typed. */
export interface RefundAsked {
  amount: string;
  reason: string;
  detail: string;
}

/** An amount as the page's language writes a number, without its currency: what the amount field shows. */
const decimalText = (amount: Amount, language: PageLanguage) => {
  const digits = amount.value.split('.')[1]?.length ?? 0;
  return new Intl.NumberFormat(language, { minimumFractionDigits: digits }).format(Number(amount.value));
};

/** Whether a refund of what remains can be asked of this payment by this role. */
export const refundable = (payment: PaymentResource, session: ConsoleSession) =>
  payment.status === 'succeeded' &&
  payment.refund_status !== 'full' &&
  mayPerform(session.role, 'refund.create');

/** The form: amount and reason; GET, as it changes nothing before its confirmation. */
export function refundForm(
  payment: PaymentResource & { link_id: string },
  language: PageLanguage,
  asked?: RefundAsked & { problem: string },
): Html {
  const words = consoleMessages(language).payment;
  const amount = asked?.amount ?? decimalText(remainingOf(payment), language);
  const options = REFUND_REASONS.map(
    (reason) =>
      html`<option value="${reason}"${asked?.reason === reason ? new Html(' selected') : ''}>${words.reasons[reason]}</option>`,
  );
  const invalid = asked ? new Html(' aria-invalid="true" aria-describedby="refund-error"') : '';
  return html`<h2>${words.refundTitle}</h2>
<form method="get" action="${paymentPath(payment)}/refund" class="inline">
<div><label for="refund_amount">${words.refundAmount(payment.amount.currency)}</label><input id="refund_amount" name="amount" inputmode="decimal" value="${amount}"${invalid}></div>
<div><label for="refund_reason">${words.reason}</label><select id="refund_reason" name="reason">${options}</select></div>
<div><label for="refund_detail">${words.reasonDetail}</label><input id="refund_detail" name="detail" value="${asked?.detail ?? ''}" maxlength="500"></div>
<button type="submit">${words.review}</button></form>
${asked ? html`<p class="error" id="refund-error" role="alert">${asked.problem}</p>` : undefined}`;
}

/**
 * The amount and reason asked, read as the page's language writes them, or why they cannot be: an amount that is
 * not one amount of at most what remains, a reason not on the list, `other` without words.
 */
export function readRefund(
  payment: PaymentResource,
  asked: RefundAsked,
  language: PageLanguage,
): { amount: Amount; reason: RefundReason; detail: string } | { problem: string } {
  const words = consoleMessages(language).payment;
  const { currency } = payment.amount;
  const remaining = remainingOf(payment);
  const value = typedDecimal(asked.amount, language, currency);
  const amount = { value, currency };
  const readable = /^\d+(\.\d+)?$/.test(value) && toMinorUnits(amount) > 0n;
  if (!readable || toMinorUnits(amount) > toMinorUnits(remaining)) {
    return { problem: words.amountUnreadable(formatAmount(remaining, language)) };
  }
  const reason = REFUND_REASONS.find((candidate) => candidate === asked.reason) ?? 'requested_by_customer';
  const detail = asked.detail.trim();
  if (reason === 'other' && !detail) return { problem: words.detailMissing };
  return { amount, reason, detail };
}

/** The confirmation: the amount in the page's words, what remains after, the reason; its button refunds. */
export function refundConfirmation(
  payment: PaymentResource & { link_id: string },
  read: { amount: Amount; reason: RefundReason; detail: string },
  session: ConsoleSession,
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).payment;
  const amount = formatAmount(read.amount, language);
  // What remains once this refund is made: what remains now, less this refund.
  const after = remainingOf({ amount: remainingOf(payment), amount_refunded: read.amount });
  return html`<h1>${words.confirmQuestion(amount, payment.id)}</h1>
<p>${words.remainsAfter(formatAmount(after, language))}</p>
<p>${words.reason}: ${words.reasons[read.reason]}${read.detail ? ` (${read.detail})` : ''}</p>
<form method="post" action="${CONSOLE_BASE}/links/${payment.link_id}/refunds">${csrfField(session)}
<input type="hidden" name="idempotency_key" value="${randomBase62(22)}">
<input type="hidden" name="payment_id" value="${payment.id}">
<input type="hidden" name="amount" value="${read.amount.value}">
<input type="hidden" name="amount_format" value="api">
<input type="hidden" name="reason" value="${read.reason}">
${read.detail ? html`<input type="hidden" name="reason_detail" value="${read.detail}">` : undefined}
<button type="submit" class="danger">${words.confirm(amount)}</button>
<a href="${paymentPath(payment)}">${words.back}</a></form>`;
}
