import type { BookPayment, BookRefund } from '../domain/books.ts';
import type { ConsoleSession } from '../domain/console-access.ts';
import { CONSOLE_BASE, csrfField } from './console-page.ts';
import { answersText, buyerText, eraseLink } from './console-payment-cells.ts';
import { type FieldError, when } from './console-views.ts';
import { formatAmount, Html, html } from './html.ts';

/** The filters of the payments and refunds pages and of the export form, as the form sends them. */
export interface BooksFormValues {
  from?: string | undefined;
  to?: string | undefined;
  status?: string | undefined;
  connection_id?: string | undefined;
  link_id?: string | undefined;
  client_reference_id?: string | undefined;
}

const FILTERS = [
  ['client_reference_id', 'Client reference'],
  ['link_id', 'Link id'],
  ['connection_id', 'Connection id'],
] as const;

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
): Html {
  const date = (name: 'from' | 'to', label: string) =>
    html`<div><label for="${name}">${label}</label><input type="date" id="${name}" name="${name}" value="${values[name] ?? ''}"${described(errors, name)}>${errorOf(errors, name)}</div>`;
  const options = statuses.map(
    (status) =>
      html`<option value="${status}"${values.status === status ? new Html(' selected') : ''}>${status}</option>`,
  );
  return html`${date('from', 'Created from (UTC)')}${date('to', 'Created to, inclusive (UTC)')}
<div><label for="status">Status</label><select id="status" name="status"${described(errors, 'status')}><option value="">any</option>${options}</select>${errorOf(errors, 'status')}</div>
${FILTERS.map(([name, label]) => html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" value="${values[name] ?? ''}"${described(errors, name)}>${errorOf(errors, name)}</div>`)}`;
}

/** Payments with their reference, buyer, answers and quantities, and a link to their link's page. */
export function bookPaymentsTable(payments: readonly BookPayment[], session: ConsoleSession): Html {
  const rows = payments.map(
    (
      payment,
    ) => html`<tr><td>${payment.id}</td><td>${payment.status}</td><td>${formatAmount(payment.amount)}</td>
<td><a href="${CONSOLE_BASE}/links/${payment.link_id}">${payment.link_id}</a></td>
<td>${payment.client_reference_id ?? '–'}</td><td>${buyerText(payment.buyer ?? null, session, 'en')}</td>
<td>${answersText(payment, 'en')}</td><td>${payment.provider} (${payment.connection_id})</td>
<td>${when(payment.created_at)}</td><td>${eraseLink(payment, session, 'en') ?? ''}</td></tr>`,
  );
  return html`<table><caption class="muted">Newest first</caption><thead><tr><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Link</th><th scope="col">Reference</th><th scope="col">Buyer</th><th scope="col">Answers</th><th scope="col">Provider</th><th scope="col">Created</th><th scope="col"><span class="muted">Personal data</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="10">No payments.</td></tr>`}</tbody></table>`;
}

export function bookRefundsTable(refunds: readonly BookRefund[]): Html {
  const rows = refunds.map(
    (refund) => html`<tr><td>${refund.id}</td><td>${refund.payment_id}</td><td>${refund.status}</td>
<td>${formatAmount(refund.amount)}</td><td><a href="${CONSOLE_BASE}/links/${refund.payment_link_id}">${refund.payment_link_id}</a></td>
<td>${refund.client_reference_id ?? '–'}</td><td>${when(refund.created_at)}</td></tr>`,
  );
  return html`<table><caption class="muted">Newest first</caption><thead><tr><th scope="col">Refund</th><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Link</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">No refunds.</td></tr>`}</tbody></table>`;
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
}): Html {
  const { values, next } = options;
  const query = Object.entries(values).flatMap(([key, value]) =>
    value ? [[key, value] as [string, string]] : [],
  );
  const more = next
    ? html`<p><a href="${options.path}?${new URLSearchParams([...query, ['cursor', next]]).toString()}">Older</a></p>`
    : undefined;
  return html`<h1>${options.title}</h1>
<form method="get" action="${options.path}" class="inline" role="search">${filterInputs(values, options.statuses, options.errors)}
<button type="submit">Filter</button></form>${options.table}${more}`;
}

/** The export form: a period of at most 31 days, payments or refunds, the filters; POST, as it is audited. */
export function exportBody(
  session: ConsoleSession,
  values: BooksFormValues & { of?: string | undefined },
  statuses: readonly string[],
  errors: readonly FieldError[],
): Html {
  const kind = (of: string, label: string) =>
    html`<label><input type="radio" name="of" value="${of}"${(values.of ?? 'payments') === of ? new Html(' checked') : ''}> ${label}</label>`;
  return html`<h1>Exports</h1><p>A CSV of up to 31 days, exactly as <code>GET /v1/payments</code> and
<code>GET /v1/refunds</code> give it with <code>Accept: text/csv</code> (docs/api.md#csv-exports).</p>
${errors.length ? html`<div class="error" role="alert"><p>The export was not made: see the fields below.</p></div>` : undefined}
<form method="post" action="${CONSOLE_BASE}/exports">${csrfField(session)}
<fieldset><legend>What</legend>${kind('payments', 'Payments')} ${kind('refunds', 'Refunds')}</fieldset>
${filterInputs(values, statuses, errors)}
<button type="submit">Download CSV</button></form>`;
}

/** The confirmation step before erasing a payment's buyer details. */
export function eraseConfirmBody(session: ConsoleSession, paymentId: string): Html {
  return html`<h1>Erase buyer details</h1>
<p>Erase the buyer's details of payment <code>${paymentId}</code> everywhere they are held? The payment stays;
its buyer's e-mail, name, phone and addresses are gone for good.</p>
<form method="post" action="${CONSOLE_BASE}/payments/${paymentId}/erase">${csrfField(session)}
<input type="hidden" name="confirm" value="yes"><button type="submit" class="danger">Erase</button>
<a href="${CONSOLE_BASE}/payments">Keep them</a></form>`;
}
