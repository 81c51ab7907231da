import type { CurrencySummary } from '../../domain/book-totals.ts';
import type { BookPayment, BookRefund } from '../../domain/books.ts';
import type { ConsoleSession } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { Payment } from '../../domain/payment.ts';
import { DATE_PRESETS, type DatePreset } from '../../domain/time-zones.ts';
import { formatAmount, Html, html } from '../html.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';
import { connectionText, paymentPath, statusText } from './payment-cells.ts';
import type { FieldError } from './views.ts';

/** The filters of the payments and refunds pages and of the export form, as the form sends them. */
export interface BooksFormValues {
  from?: string | undefined;
  to?: string | undefined;
  status?: string | undefined;
  connection_id?: string | undefined;
  link_id?: string | undefined;
  client_reference_id?: string | undefined;
}

/** The text filters, each with the name of its label among the books' words. */
const FILTERS = [
  ['client_reference_id', 'clientReference'],
  ['link_id', 'linkId'],
  ['connection_id', 'connectionId'],
] as const satisfies readonly (readonly [keyof BooksFormValues, keyof ConsoleMessages['books']])[];

/** The form's field of a problem the API's schema reports (`/created[gte]` is the `from` date). */
export function fieldOf(pointer: string): string {
  if (pointer.startsWith('/created[gte]')) return 'from';
  if (pointer.startsWith('/created[lt]')) return 'to';
  return pointer.slice(1).split('/')[0] ?? '';
}

function errorOf(errors: readonly FieldError[], field: string) {
  const found = errors.filter((error) => fieldOf(error.pointer) === field);
  return found.length
    ? html`<span class="error" id="${field}-error">${found.map((error) => error.detail).join(' ')}</span>`
    : undefined;
}

const described = (errors: readonly FieldError[], field: string) =>
  errors.some((error) => fieldOf(error.pointer) === field)
    ? new Html(` aria-invalid="true" aria-describedby="${field}-error"`)
    : '';

/** A payment's or a refund's status in words: the filters list both kinds' (the API's word is the value sent). */
function statusWord(status: string, language: PageLanguage): string {
  const words = consoleMessages(language).status;
  return Object.hasOwn(words.payment, status)
    ? words.payment[status as keyof typeof words.payment]
    : (words.refund[status as keyof typeof words.refund] ?? status);
}

/** The filter inputs shared by the lists and the export form, each with its error beside it. */
export function filterInputs(
  values: BooksFormValues,
  statuses: readonly string[],
  errors: readonly FieldError[],
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).books;
  const date = (name: 'from' | 'to', label: string) =>
    html`<div><label for="${name}">${label}</label><input type="date" id="${name}" name="${name}" value="${values[name] ?? ''}"${described(errors, name)}>${errorOf(errors, name)}</div>`;
  const options = statuses.map(
    (status) =>
      html`<option value="${status}"${values.status === status ? new Html(' selected') : ''}>${statusWord(status, language)}</option>`,
  );
  return html`${date('from', words.from)}${date('to', words.to)}
<div><label for="status">${consoleMessages(language).columns.status}</label><select id="status" name="status"${described(errors, 'status')}><option value="">${words.anyStatus}</option>${options}</select>${errorOf(errors, 'status')}</div>
${FILTERS.map(([name, label]) => html`<div><label for="${name}">${words[label]}</label><input id="${name}" name="${name}" value="${values[name] ?? ''}"${described(errors, name)}>${errorOf(errors, name)}</div>`)}`;
}

/**
 * Payments in the columns that fit a laptop's width (1,366 px): each row's id opens its page, where the buyer,
 * answers, fee and timeline are (docs/console.md#a-payments-page).
 */
export function bookPaymentsTable(
  payments: readonly BookPayment[],
  names: ReadonlyMap<string, string>,
  language: PageLanguage,
): Html {
  const { books: words, columns } = consoleMessages(language);
  const rows = payments.map(
    (
      payment,
    ) => html`<tr><td><a href="${paymentPath(payment)}">${payment.id}</a></td><td class="nowrap">${when(payment.created_at)}</td>
<td>${statusText(payment, language)}</td><td class="nowrap">${formatAmount(payment.amount, language)}</td>
<td>${connectionText(payment, names)}</td><td>${payment.client_reference_id ?? '–'}</td>
<td><a href="${CONSOLE_BASE}/links/${payment.link_id}">${payment.link_id}</a></td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${columns.payment}</th><th scope="col">${columns.created}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${consoleMessages(language).payment.connection}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.link}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">${words.noPayments}</td></tr>`}</tbody></table>`;
}

export function bookRefundsTable(refunds: readonly BookRefund[], language: PageLanguage): Html {
  const { books: words, columns } = consoleMessages(language);
  const rows = refunds.map(
    (
      refund,
    ) => html`<tr><td>${refund.id}</td><td><a href="${paymentPath({ id: refund.payment_id, link_id: refund.payment_link_id })}">${refund.payment_id}</a></td><td>${consoleMessages(language).status.refund[refund.status]}</td>
<td class="nowrap">${formatAmount(refund.amount, language)}</td><td>${refund.client_reference_id ?? '–'}</td><td class="nowrap">${when(refund.created_at)}</td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${columns.refund}</th><th scope="col">${columns.payment}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.created}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${words.noRefunds}</td></tr>`}</tbody></table>`;
}

/** The one-click periods, each a link to the same list with its dates and the other filters kept. */
export function presetLinks(
  path: string,
  values: BooksFormValues,
  periods: Record<DatePreset, { from: string; to: string }>,
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).books;
  const links = DATE_PRESETS.map((preset) => {
    const query = Object.entries({ ...values, ...periods[preset] }).flatMap(([key, value]) =>
      value ? [[key, value] as [string, string]] : [],
    );
    const current = values.from === periods[preset].from && values.to === periods[preset].to;
    return html`<li><a href="${path}?${new URLSearchParams(query).toString()}"${current ? new Html(' aria-current="true"') : ''}>${words.presets[preset]}</a></li>`;
  });
  return html`<nav aria-label="${words.presetsLabel}"><ul class="presets">${links}</ul></nav>`;
}

/** The totals of a list's selection (`summarizeBookPayments`), and whether they stop short of its end. */
export interface SelectionTotals {
  currencies: CurrencySummary[];
  partial: boolean;
}

/** The selection's totals per currency, or why there are none: a list without a period adds nothing up. */
export function totalsTable(
  totals: { summary: SelectionTotals | undefined; from?: string | undefined; to?: string | undefined },
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).books.totals;
  const { summary } = totals;
  if (!summary) return html`<p class="muted">${words.pickPeriod}</p>`;
  const money = (value: string, currency: string) => formatAmount({ value, currency }, language);
  const rows = summary.currencies.map(
    (
      sums,
    ) => html`<tr><th scope="row">${sums.currency}</th><td>${sums.count}</td><td>${money(sums.gross, sums.currency)}</td>
<td>${money(sums.refunded, sums.currency)}</td><td>${money(sums.fees, sums.currency)}</td><td>${money(sums.net, sums.currency)}</td></tr>`,
  );
  const notes = [
    ...summary.currencies
      .filter((sums) => sums.payments_without_fee)
      .map((sums) => `${sums.currency}: ${words.withoutFee(sums.payments_without_fee)}`),
    ...(summary.partial ? [words.partial] : []),
  ];
  return html`<table class="totals"><caption>${words.caption(totals.from ?? '…', totals.to ?? '…')}</caption>
<thead><tr><th scope="col">${words.currency}</th><th scope="col">${words.payments}</th><th scope="col">${words.gross}</th><th scope="col">${words.refunded}</th><th scope="col">${words.fees}</th><th scope="col">${words.net}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${consoleMessages(language).books.noPayments}</td></tr>`}</tbody></table>
${notes.map((note) => html`<p class="muted">${note}</p>`)}`;
}

/** A list page: its filters (GET, so a filtered page can be bookmarked), the table, and the next page. */
export function booksListBody(options: {
  title: string;
  path: string;
  values: BooksFormValues;
  statuses: readonly string[];
  errors: readonly FieldError[];
  table: Html;
  /** Above the filters and beside the table: the one-click periods, the selection's totals (payments). */
  presets: Html;
  totals?: Html | undefined;
  next: string | undefined;
  language: PageLanguage;
}): Html {
  const { values, next, language } = options;
  const words = consoleMessages(language).books;
  const query = Object.entries(values).flatMap(([key, value]) =>
    value ? [[key, value] as [string, string]] : [],
  );
  const more = next
    ? html`<p><a href="${options.path}?${new URLSearchParams([...query, ['cursor', next]]).toString()}">${words.older}</a></p>`
    : undefined;
  return html`<h1>${options.title}</h1>${options.presets}
<form method="get" action="${options.path}" class="inline" role="search">${filterInputs(values, options.statuses, options.errors, language)}
<button type="submit">${words.filter}</button></form>${options.totals}${options.table}${more}`;
}

/** The export form: a period of at most 31 days, payments or refunds, the filters; POST, as it is audited. */
export function exportBody(
  session: ConsoleSession,
  values: BooksFormValues & { of?: string | undefined },
  statuses: readonly string[],
  errors: readonly FieldError[],
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).books;
  return html`<h1>${words.exports}</h1><p>${words.exportIntro}</p>
${errors.length ? html`<div class="error" role="alert"><p>${words.exportNotMade}</p></div>` : undefined}
<form method="post" action="${CONSOLE_BASE}/exports">${csrfField(session)}
${filterInputs(values, statuses, errors, language)}
<p><button type="submit" name="of" value="payments">${words.downloadPayments}</button>
<button type="submit" name="of" value="refunds">${words.downloadRefunds}</button></p></form>`;
}

/**
 * The confirmation step before erasing a payment's buyer details: what the erasure will erase, the buyer's other
 * attempts on the link with it (`buyerAttempts`), and what it cannot find.
 */
export function eraseConfirmBody(
  session: ConsoleSession,
  attempts: { payment: Pick<Payment, 'id' | 'link_id'>; others: readonly Payment[] },
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).books;
  const { payment, others } = attempts;
  const [before, after] = words.eraseQuestion;
  const [othersBefore, othersAfter] = others.length ? words.eraseAlso : words.eraseNoOthers;
  const list = others.map(
    (other) =>
      html`<li><code>${other.id}</code>: ${consoleMessages(language).status.payment[other.status]}, ${when(other.created_at)}</li>`,
  );
  return html`<h1>${words.eraseTitle}</h1>
<p>${before} <code>${payment.id}</code> ${after}</p>
<p>${othersBefore} <a href="${CONSOLE_BASE}/links/${payment.link_id}">${payment.link_id}</a> ${othersAfter}</p>
${others.length ? html`<ul>${list}</ul>` : undefined}
<p>${words.eraseUnlinked}</p>
<p>${words.eraseEffect}</p>
<form method="post" action="${CONSOLE_BASE}/payments/${payment.id}/erase">${csrfField(session)}
<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">${words.erase}</button>
<a href="${CONSOLE_BASE}/payments">${words.keep}</a></form>`;
}
