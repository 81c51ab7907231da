import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { Amount } from '../../domain/money.ts';
import type { SettlementItem } from '../../domain/settlement.ts';
import type { SettlementResource } from '../../use-cases/settlement-reads.ts';
import { formatAmount, type Html, html } from '../html.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';
import { paymentPath } from './payment-cells.ts';
import type { FieldError } from './views.ts';

/** The settlements list and a settlement's page (docs/console.md#settlements). */

/** The list's filters as the form sends them: arrival days, both counted in full, and a connection. */
export interface SettlementFilters {
  from?: string | undefined;
  to?: string | undefined;
  connection_id?: string | undefined;
}

const PATH = `${CONSOLE_BASE}/settlements`;

/** The form's field of a problem the API's schema reports (`/arrival_date[gte]` is the `from` day). */
function fieldOf(pointer: string): string {
  if (pointer.startsWith('/arrival_date[gte]')) return 'from';
  if (pointer.startsWith('/arrival_date[lt]')) return 'to';
  return pointer.slice(1);
}

/** A field's problems beside it, and the attributes that tie them to it. */
function problemOf(errors: readonly FieldError[], field: string) {
  const found = errors.filter((error) => fieldOf(error.pointer) === field).map((error) => error.detail);
  if (!found.length) return { described: '', text: undefined };
  return {
    described: html` aria-invalid="true" aria-describedby="${field}-error"`,
    text: html`<span class="error" id="${field}-error">${found.join(' ')}</span>`,
  };
}

const connectionOf = (
  settlement: Pick<SettlementResource, 'connection_id' | 'provider'>,
  names: ReadonlyMap<string, string>,
) => names.get(settlement.connection_id) ?? settlement.connection_id;

const money = (amount: Amount | null, language: PageLanguage) =>
  amount ? formatAmount(amount, language) : '–';

function filterInputs(
  filters: SettlementFilters,
  errors: readonly FieldError[],
  names: ReadonlyMap<string, string>,
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).settlement;
  const date = (name: 'from' | 'to', label: string) => {
    const problem = problemOf(errors, name);
    return html`<div><label for="${name}">${label}</label><input type="date" id="${name}" name="${name}" value="${filters[name] ?? ''}"${problem.described}>${problem.text}</div>`;
  };
  const options = [...names].map(
    ([id, name]) =>
      html`<option value="${id}"${filters.connection_id === id ? html` selected` : ''}>${name}</option>`,
  );
  const connection = problemOf(errors, 'connection_id');
  return html`${date('from', words.arrivalFrom)}${date('to', words.arrivalTo)}
<div><label for="connection_id">${words.connection}</label><select id="connection_id" name="connection_id"${connection.described}><option value="">${words.anyConnection}</option>${options}</select>${connection.text}</div>`;
}

/** The filters as hidden fields: the download selects what the list shows. */
const hiddenFilters = (filters: SettlementFilters) =>
  Object.entries(filters).map(([name, value]) =>
    value ? html`<input type="hidden" name="${name}" value="${value}">` : undefined,
  );

/** The list: its periods, filters (GET, so a filtered list can be bookmarked), the table, the next page, the CSV. */
export function settlementsBody(options: {
  settlements: readonly SettlementResource[];
  filters: SettlementFilters;
  errors: readonly FieldError[];
  names: ReadonlyMap<string, string>;
  presets: Html;
  next: string | undefined;
  session: ConsoleSession;
  language: PageLanguage;
}): Html {
  const { filters, language, session } = options;
  const { settlement: words, books } = consoleMessages(language);
  const query = Object.entries(filters).flatMap(([key, value]) =>
    value ? [[key, value] as [string, string]] : [],
  );
  const more = options.next
    ? html`<p><a href="${PATH}?${new URLSearchParams([...query, ['cursor', options.next]]).toString()}">${books.older}</a></p>`
    : undefined;
  const download = mayPerform(session.role, 'export.read')
    ? html`<form method="post" action="${PATH}/export">${csrfField(session)}${hiddenFilters(filters)}<button type="submit">${words.download}</button></form>`
    : undefined;
  return html`<h1>${words.title}</h1>${options.presets}
<form method="get" action="${PATH}" class="inline" role="search">${filterInputs(filters, options.errors, options.names, language)}
<button type="submit">${books.filter}</button></form>
${settlementsTable(options.settlements, options.names, language)}${more}${download}`;
}

function settlementsTable(
  settlements: readonly SettlementResource[],
  names: ReadonlyMap<string, string>,
  language: PageLanguage,
): Html {
  const { settlement: words, columns } = consoleMessages(language);
  const rows = settlements.map(
    (settlement) => html`<tr><td><a href="${PATH}/${settlement.id}">${settlement.id}</a></td>
<td>${settlement.provider}</td><td>${connectionOf(settlement, names)}</td>
<td class="nowrap">${formatAmount(settlement.amount, language)}</td><td>${settlement.amount.currency}</td>
<td class="nowrap">${settlement.arrival_date ?? words.noArrival}</td><td>${words.statuses[settlement.status]}</td>
<td>${settlement.matched_count}</td><td>${settlement.unmatched_count}</td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${words.settlement}</th><th scope="col">${words.provider}</th><th scope="col">${words.connection}</th><th scope="col">${columns.amount}</th><th scope="col">${consoleMessages(language).books.totals.currency}</th><th scope="col">${words.arrival}</th><th scope="col">${columns.status}</th><th scope="col">${words.matched}</th><th scope="col">${words.unmatched}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="9">${words.none}</td></tr>`}</tbody></table>`;
}

export interface SettlementView {
  settlement: SettlementResource & { items: readonly SettlementItem[] };
  names: ReadonlyMap<string, string>;
  session: ConsoleSession;
  language: PageLanguage;
}

/** A settlement's page: the payout, its lines matched to our payments and refunds, the rest apart, the CSV. */
export function settlementBody(view: SettlementView): Html {
  const { settlement, session, language } = view;
  const words = consoleMessages(language).settlement;
  const download = mayPerform(session.role, 'export.read')
    ? html`<form method="post" action="${PATH}/${settlement.id}/export">${csrfField(session)}<button type="submit">${words.downloadLines}</button></form>`
    : undefined;
  return html`<h1>${words.titleOf(settlement.id)}</h1>${details(view)}${download}
${matchedTable(
  settlement.items.filter((item) => item.matched),
  language,
)}
${unmatchedTable(
  settlement.items.filter((item) => !item.matched),
  language,
)}`;
}

function details({ settlement, names, language }: SettlementView): Html {
  const { settlement: words, columns } = consoleMessages(language);
  return html`<dl><dt>${columns.status}</dt><dd>${words.statuses[settlement.status]}</dd>
<dt>${columns.amount}</dt><dd>${formatAmount(settlement.amount, language)}</dd>
<dt>${words.arrival}</dt><dd>${settlement.arrival_date ?? words.noArrival}</dd>
<dt>${words.provider}</dt><dd>${settlement.provider}</dd>
<dt>${words.connection}</dt><dd>${connectionOf(settlement, names)}</dd>
<dt>${words.pspReference}</dt><dd><code>${settlement.psp_reference}</code></dd>
<dt>${words.matched}</dt><dd>${settlement.matched_count}</dd>
<dt>${words.unmatched}</dt><dd>${settlement.unmatched_count}</dd>
<dt>${columns.created}</dt><dd>${when(settlement.psp_created_at)}</dd></dl>`;
}

/** A matched line's payment or refund, as a link to the payment's page (where its refunds are). */
function matchedCell(item: SettlementItem, language: PageLanguage): Html | string {
  if (!item.payment_id || !item.link_id) return '–';
  const path = paymentPath({ id: item.payment_id, link_id: item.link_id });
  const text = item.refund_id
    ? consoleMessages(language).settlement.refundOf(item.refund_id)
    : item.payment_id;
  return html`<a href="${path}">${text}</a>`;
}

const amountCells = (item: SettlementItem, language: PageLanguage) =>
  html`<td class="nowrap">${money(item.amount, language)}</td><td class="nowrap">${money(item.fee, language)}</td><td class="nowrap">${money(item.net, language)}</td>`;

function matchedTable(items: readonly SettlementItem[], language: PageLanguage): Html {
  const words = consoleMessages(language).settlement;
  const rows = items.map(
    (item) =>
      html`<tr><td>${words.kinds[item.kind]}</td><td>${matchedCell(item, language)}</td>${amountCells(item, language)}</tr>`,
  );
  return html`<h2>${words.matchedLines}</h2><table><thead><tr><th scope="col">${words.kind}</th><th scope="col">${consoleMessages(language).columns.payment}</th><th scope="col">${consoleMessages(language).columns.amount}</th><th scope="col">${words.fee}</th><th scope="col">${words.net}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.noMatchedLines}</td></tr>`}</tbody></table>`;
}

function unmatchedTable(items: readonly SettlementItem[], language: PageLanguage): Html {
  const words = consoleMessages(language).settlement;
  const rows = items.map(
    (item) =>
      html`<tr><td>${words.kinds[item.kind]}</td><td><code>${item.psp_reference}</code></td><td>${item.payment_reference ? html`<code>${item.payment_reference}</code>` : '–'}</td>${amountCells(item, language)}</tr>`,
  );
  return html`<h2>${words.unmatchedLines}</h2><p>${words.unmatchedIntro}</p><table><thead><tr><th scope="col">${words.kind}</th><th scope="col">${words.pspReference}</th><th scope="col">${words.paymentReference}</th><th scope="col">${consoleMessages(language).columns.amount}</th><th scope="col">${words.fee}</th><th scope="col">${words.net}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${words.noUnmatchedLines}</td></tr>`}</tbody></table>`;
}
