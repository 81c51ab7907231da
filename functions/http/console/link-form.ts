import { parseBuyerDecimal } from '../../domain/amount.ts';
import type { ConsoleSession } from '../../domain/console-access.ts';
import { PAGE_LANGUAGES, type PageLanguage } from '../../domain/locale.ts';
import { MAX_MINOR_UNITS, minorUnits } from '../../domain/money.ts';
import { PAYMENT_METHODS } from '../../domain/payment-methods.ts';
import { Html, html } from '../html.ts';
import {
  adjustableCells,
  adjustableQuantityOf,
  errorsByInput,
  questionFields,
  questionsOf,
} from './link-questions.ts';
import type { ConsoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField } from './page.ts';
import type { FieldError } from './views.ts';

/** Line-item rows the form offers; the API takes more, which the form does not need for a first link. */
export const FORM_LINE_ITEMS = 5;

type Words = ConsoleMessages['linkForm'];

const AMOUNT_KINDS = ['fixed', 'line_items', 'amount_range'] as const;

const optional = (form: URLSearchParams, name: string) => form.get(name)?.trim() || undefined;

/**
 * An amount as someone typed it in the console's language (`10,50` in German), as the API writes it (`10.50`),
 * read as the checkout reads a buyer's (`parseBuyerDecimal`). Anything it cannot read as exactly one amount goes
 * to the API as typed, whose validation then names the field in the API's words.
 */
export function typedDecimal(
  input: string | null | undefined,
  language: PageLanguage,
  currency: string,
): string {
  const typed = input?.trim() ?? '';
  const read = parseBuyerDecimal(typed, language, minorUnits(currency) ?? MAX_MINOR_UNITS);
  return read.ok ? read.value : typed;
}

/** The line-item rows with a name or a price, in order: the request's `line_items`. */
export const filledItemRows = (form: URLSearchParams): number[] =>
  Array.from({ length: FORM_LINE_ITEMS }, (_, index) => index + 1).filter(
    (row) => optional(form, `item_name_${row}`) || optional(form, `item_price_${row}`),
  );

function lineItemsOf(form: URLSearchParams, language: PageLanguage, currency: string) {
  return filledItemRows(form).map((row) => {
    const quantity = optional(form, `item_quantity_${row}`);
    return {
      name: optional(form, `item_name_${row}`) ?? '',
      quantity: quantity && /^\d+$/.test(quantity) ? Number(quantity) : (quantity ?? 1),
      unit_amount: { value: typedDecimal(form.get(`item_price_${row}`), language, currency), currency },
      ...adjustableQuantityOf(form, row),
    };
  });
}

function amountSourceOf(form: URLSearchParams, language: PageLanguage, currency: string) {
  const decimal = (name: string) => typedDecimal(form.get(name), language, currency);
  switch (form.get('amount_kind')) {
    case 'line_items':
      return { line_items: lineItemsOf(form, language, currency) };
    case 'amount_range':
      return {
        amount_range: { currency, minimum: decimal('range_minimum'), maximum: decimal('range_maximum') },
      };
    default:
      return { amount: { value: decimal('amount'), currency } };
  }
}

/**
 * The form as the API's create request (`POST /v1/payment-links`): the same schema then validates it, so every
 * rule, limit and message is the API's. Empty fields are left out, as a developer would leave them out; amounts
 * are read in the console's `language` (`typedDecimal`).
 */
export function createRequestOf(form: URLSearchParams, language: PageLanguage): Record<string, unknown> {
  const currency = optional(form, 'currency')?.toUpperCase() ?? '';
  const methods = form.getAll('payment_methods');
  const reusable = form.get('reusable') === 'on';
  const maxPayments = optional(form, 'max_payments');
  return {
    ...amountSourceOf(form, language, currency),
    description: optional(form, 'description'),
    ...(methods.length && { payment_methods: methods }),
    ...(reusable && { reusable: true }),
    ...(reusable &&
      maxPayments && { max_payments: /^\d+$/.test(maxPayments) ? Number(maxPayments) : maxPayments }),
    locale: optional(form, 'locale'),
    expires_at: optional(form, 'expires_at'),
    redirect_url: optional(form, 'redirect_url'),
    webhook_url: optional(form, 'webhook_url'),
    ...questionsOf(form),
  };
}

function errorList(errors: readonly FieldError[], words: Words): Html | undefined {
  if (!errors.length) return undefined;
  return html`<div class="error" role="alert"><p>${words.notCreated}</p><ul>${errors.map(
    (error) => html`<li>${error.pointer || words.wholeRequest}: ${error.detail}</li>`,
  )}</ul></div>`;
}

const checked = (on: boolean) => (on ? new Html(' checked') : undefined);

function lineItemRows(values: URLSearchParams, errors: ReadonlyMap<string, string[]>, words: Words): Html[] {
  return Array.from({ length: FORM_LINE_ITEMS }, (_, index) => {
    const row = index + 1;
    const value = (name: string) => values.get(`${name}_${row}`) ?? '';
    return html`<tr><td><input aria-label="${words.itemNameLabel(row)}" name="item_name_${row}" value="${value('item_name')}"></td>
<td><input aria-label="${words.itemQuantityLabel(row)}" name="item_quantity_${row}" inputmode="numeric" size="4" value="${value('item_quantity')}"></td>
<td><input aria-label="${words.itemPriceLabel(row)}" name="item_price_${row}" inputmode="decimal" size="8" value="${value('item_price')}"></td>
${adjustableCells(values, errors, row, words)}</tr>`;
  });
}

function amountFields(values: URLSearchParams, errors: ReadonlyMap<string, string[]>, words: Words): Html {
  const kind = values.get('amount_kind') ?? 'fixed';
  const value = (name: string) => values.get(name) ?? '';
  return html`<fieldset><legend>${words.amount}</legend>
${AMOUNT_KINDS.map((id) => html`<label class="choice"><input type="radio" name="amount_kind" value="${id}"${checked(kind === id)}> ${words.amountKinds[id]}</label>`)}
<label for="currency">${words.currency}</label><input id="currency" name="currency" required maxlength="3" size="4" value="${values.get('currency') ?? 'EUR'}">
<label for="amount">${words.fixedAmount}</label><input id="amount" name="amount" inputmode="decimal" value="${value('amount')}">
<table><caption>${words.lineItems}</caption><thead><tr><th scope="col">${words.itemName}</th><th scope="col">${words.quantity}</th><th scope="col">${words.unitPrice}</th><th scope="col">${words.buyerPicksQuantity}</th><th scope="col">${words.least}</th><th scope="col">${words.most}</th></tr></thead>
<tbody>${lineItemRows(values, errors, words)}</tbody></table>
<div class="inline"><div><label for="range_minimum">${words.rangeMinimum}</label><input id="range_minimum" name="range_minimum" inputmode="decimal" value="${value('range_minimum')}"></div>
<div><label for="range_maximum">${words.rangeMaximum}</label><input id="range_maximum" name="range_maximum" inputmode="decimal" value="${value('range_maximum')}"></div></div>
</fieldset>`;
}

/** A checkout language by its own name ("Deutsch"), as language pickers show them, whatever the console's language. */
const ownName = (language: string) =>
  new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;

function optionFields(values: URLSearchParams, words: Words): Html {
  const value = (name: string) => values.get(name) ?? '';
  const methods = new Set(values.getAll('payment_methods'));
  const locale = values.get('locale') ?? '';
  return html`<fieldset><legend>${words.methods}</legend>
${PAYMENT_METHODS.map((method) => html`<label class="choice"><input type="checkbox" name="payment_methods" value="${method}"${checked(methods.has(method))}> ${method}</label>`)}
</fieldset>
<fieldset><legend>${words.use}</legend>
<label class="choice"><input type="checkbox" name="reusable"${checked(values.get('reusable') === 'on')}> ${words.reusable}</label>
<label for="max_payments">${words.maxPayments}</label><input id="max_payments" name="max_payments" inputmode="numeric" value="${value('max_payments')}">
</fieldset>
<label for="locale">${words.checkoutLanguage}</label><select id="locale" name="locale"><option value="">${words.buyersBrowser}</option>${PAGE_LANGUAGES.map(
    (language) =>
      html`<option value="${language}"${locale === language ? new Html(' selected') : ''}>${ownName(language)}</option>`,
  )}</select>`;
}

/** The create form, with every option of the API's create request the console offers, in `words`' language. */
export function newLinkBody(
  session: ConsoleSession,
  values: URLSearchParams,
  errors: readonly FieldError[],
  words: Words,
) {
  const value = (name: string) => values.get(name) ?? '';
  const atInputs = errorsByInput(errors, values, filledItemRows(values));
  return html`<h1>${words.title}</h1>${errorList(errors, words)}
<form method="post" action="${CONSOLE_BASE}/links">${csrfField(session)}
${amountFields(values, atInputs, words)}
<label for="description">${words.description}</label><input id="description" name="description" value="${value('description')}">
${optionFields(values, words)}
${questionFields(values, atInputs, words)}
<label for="expires_at">${words.expiresAt}</label><input id="expires_at" name="expires_at" value="${value('expires_at')}" placeholder="2026-12-31T23:59:00Z">
<label for="redirect_url">${words.redirectUrl}</label><input id="redirect_url" name="redirect_url" type="url" value="${value('redirect_url')}">
<label for="webhook_url">${words.webhookUrl}</label><input id="webhook_url" name="webhook_url" type="url" value="${value('webhook_url')}">
<p><button type="submit">${words.create}</button></p></form>`;
}
