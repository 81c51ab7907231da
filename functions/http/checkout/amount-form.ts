import { type AmountRange, parseBuyerDecimal } from '../../domain/amount.ts';
import { type CheckoutView, VIA_ANOTHER_PROVIDER } from '../../domain/checkout/views.ts';
import { type Amount, minorUnits } from '../../domain/money.ts';
import type { PaymentLink } from '../../domain/payment-link.ts';
import { formatAmount, type Html, html } from '../html.ts';
import type { Messages } from './messages.ts';

/** The amount form of a link with a buyer-chosen amount (`amount_range`), its field, and why an answer was refused. */

/** Where the form is sent, and the language it speaks: a part of the page's view context. */
interface AmountFormContext {
  locale: string;
  checkoutBase: string;
}

/** "between €5.00 and €500.00" in the buyer's locale: the bounds of a buyer-chosen amount. */
export function rangeBounds(range: AmountRange, locale: string): [string, string] {
  return [
    formatAmount({ value: range.minimum, currency: range.currency }, locale),
    formatAmount({ value: range.maximum, currency: range.currency }, locale),
  ];
}

/** A decimal amount as the buyer writes it in their locale, without currency (`25,00` in `nl`): a form's value. */
export function typedAmount(amount: Amount, locale: string): string {
  const digits = minorUnits(amount.currency) ?? 2;
  return new Intl.NumberFormat(locale, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  }).format(amount.value as Intl.StringNumericLiteral);
}

/**
 * The re-ask for an entry that reads as two amounts (`12.500` TND in `fr`): both amounts as the page writes them,
 * and each typed so it reads one way only: with the page's decimal separator (`12,5`), or with no separator
 * (`12500`). Undefined when the entry does not read two ways in this locale.
 */
function ambiguityMessage(
  entered: string | undefined,
  range: AmountRange,
  locale: string,
  t: Messages,
): string | undefined {
  const digits = minorUnits(range.currency) ?? 2;
  const read = parseBuyerDecimal(entered ?? '', locale, digits);
  if (read.ok || read.problem !== 'ambiguous') return undefined;
  const asAmount = (value: string) => formatAmount({ value, currency: range.currency }, locale);
  const typed = new Intl.NumberFormat(locale, { maximumFractionDigits: digits, useGrouping: false });
  const { decimal, thousands } = read.readings;
  return t.amountAmbiguous(
    asAmount(decimal),
    asAmount(thousands),
    typed.format(decimal as Intl.StringNumericLiteral),
    typed.format(thousands as Intl.StringNumericLiteral),
  );
}

/**
 * The form that asks a buyer for the amount of a link with `amount_range` (docs/checkout.md#buyer-chosen-amounts):
 * a plain POST to the checkout page, no script; the server reads and checks it. `value` is what the field shows
 * (what the buyer typed, or a suggestion); `problem` is why the last answer was refused.
 */
export function amountForm(
  link: PaymentLink,
  range: AmountRange,
  context: AmountFormContext,
  t: Messages,
  options: { value?: string | undefined; problem?: string | undefined; submit: string; another?: boolean },
): Html {
  return html`<form method="post" action="${`${context.checkoutBase}/${link.id}`}" novalidate>
${amountField(range, context, t, options)}
<button type="submit">${options.submit}</button>
${options.another ? html`<button type="submit" name="via" value="${VIA_ANOTHER_PROVIDER}" class="secondary">${t.otherProvider}</button>` : undefined}
</form>`;
}

/** The amount field of a buyer-chosen amount, with its bounds and why the last answer was refused. */
export function amountField(
  range: AmountRange,
  context: AmountFormContext,
  t: Messages,
  options: { value?: string | undefined; problem?: string | undefined },
): Html {
  const described = options.problem ? 'amount-hint amount-error' : 'amount-hint';
  return html`<label for="amount">${t.chooseAmountLabel} (${range.currency})</label>
<input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required value="${options.value ?? ''}" aria-describedby="${described}"${options.problem ? html` aria-invalid="true"` : undefined}>
<p id="amount-hint" class="muted">${t.amountHint(...rangeBounds(range, context.locale))}</p>
${options.problem ? html`<p id="amount-error" class="error">${options.problem}</p>` : undefined}`;
}

/** Why the buyer's last answer to the amount form was refused, in their language. */
export function problemText(
  view: Extract<CheckoutView, { kind: 'ask' }>,
  range: AmountRange,
  context: AmountFormContext,
  t: Messages,
): string | undefined {
  const bounds = rangeBounds(range, context.locale);
  if (view.problem === undefined) return undefined;
  if (view.problem === 'not_payable') return t.amountNotPayable;
  if (view.problem === 'ambiguous') {
    return ambiguityMessage(view.entered, range, context.locale, t) ?? t.amountInvalid(...bounds);
  }
  return t.amountInvalid(...bounds);
}
