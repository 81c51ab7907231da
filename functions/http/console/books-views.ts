import type { BookPayment, BookRefund } from '../../domain/books.ts';
import type { ConsoleSession } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { Payment } from '../../domain/payment.ts';
import { formatAmount, Html, html } from '../html.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';
import { answersText, buyerText, eraseLink, statusText } from './payment-cells.ts';
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
      html`<option value="${status}"${values.status === status ? new Html(' selected') : ''}>${status}</option>`,
  );
  return html`${date('from', words.from)}${date('to', words.to)}
<div><label for="status">${consoleMessages(language).columns.status}</label><select id="status" name="status"${described(errors, 'status')}><option value="">${words.anyStatus}</option>${options}</select>${errorOf(errors, 'status')}</div>
${FILTERS.map(([name, label]) => html`<div><label for="${name}">${words[label]}</label><input id="${name}" name="${name}" value="${values[name] ?? ''}"${described(errors, name)}>${errorOf(errors, name)}</div>`)}`;
}

/** Payments with their reference, buyer, answers and quantities, and a link to their link's page. */
export function bookPaymentsTable(
  payments: readonly BookPayment[],
  session: ConsoleSession,
  language: PageLanguage,
): Html {
  const { books: words, columns } = consoleMessages(language);
  const rows = payments.map(
    (
      payment,
    ) => html`<tr><td>${payment.id}</td><td>${statusText(payment, language)}</td><td>${formatAmount(payment.amount, language)}</td>
<td><a href="${CONSOLE_BASE}/links/${payment.link_id}">${payment.link_id}</a></td>
<td>${payment.client_reference_id ?? '–'}</td><td>${buyerText(payment.buyer ?? null, session, language)}</td>
<td>${answersText(payment, language)}</td><td>${payment.provider} (${payment.connection_id})</td>
<td>${when(payment.created_at)}</td><td>${eraseLink(payment, session, language) ?? ''}</td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${columns.payment}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.link}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.buyer}</th><th scope="col">${columns.answers}</th><th scope="col">${columns.provider}</th><th scope="col">${columns.created}</th><th scope="col"><span class="muted">${columns.personalData}</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="10">${words.noPayments}</td></tr>`}</tbody></table>`;
}

export function bookRefundsTable(refunds: readonly BookRefund[], language: PageLanguage): Html {
  const { books: words, columns } = consoleMessages(language);
  const rows = refunds.map(
    (refund) => html`<tr><td>${refund.id}</td><td>${refund.payment_id}</td><td>${refund.status}</td>
<td>${formatAmount(refund.amount, language)}</td><td><a href="${CONSOLE_BASE}/links/${refund.payment_link_id}">${refund.payment_link_id}</a></td>
<td>${refund.client_reference_id ?? '–'}</td><td>${when(refund.created_at)}</td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${columns.refund}</th><th scope="col">${columns.payment}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.link}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.created}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">${words.noRefunds}</td></tr>`}</tbody></table>`;
}

/** A list page: its filters (GET, so a filtered page can be bookmarked), the table, and the next page. */
export function booksListBody(options: {
  title: string;
  path: string;
  values: BooksFormValues;
  statuses: readonly string[];
  errors: readonly FieldError[];
  table: Html;
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
  return html`<h1>${options.title}</h1>
<form method="get" action="${options.path}" class="inline" role="search">${filterInputs(values, options.statuses, options.errors, language)}
<button type="submit">${words.filter}</button></form>${options.table}${more}`;
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
  const [before, between, givenWith, after] = words.exportIntro;
  const kind = (of: string, label: string) =>
    html`<label><input type="radio" name="of" value="${of}"${(values.of ?? 'payments') === of ? new Html(' checked') : ''}> ${label}</label>`;
  return html`<h1>${words.exports}</h1><p>${before} <code>GET /v1/payments</code> ${between}
<code>GET /v1/refunds</code> ${givenWith} <code>Accept: text/csv</code> ${after}</p>
${errors.length ? html`<div class="error" role="alert"><p>${words.exportNotMade}</p></div>` : undefined}
<form method="post" action="${CONSOLE_BASE}/exports">${csrfField(session)}
<fieldset><legend>${words.what}</legend>${kind('payments', words.payments)} ${kind('refunds', words.refunds)}</fieldset>
${filterInputs(values, statuses, errors, language)}
<button type="submit">${words.downloadCsv}</button></form>`;
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
    (other) => html`<li><code>${other.id}</code>: ${other.status}, ${when(other.created_at)}</li>`,
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
