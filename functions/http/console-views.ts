import encodeQR from 'qr';
import { type AuditEntry, type ConsoleSession, mayPerform } from '../domain/console-access.ts';
import type { PageLanguage } from '../domain/locale.ts';
import type { PaymentResource } from '../domain/payment.ts';
import { LINK_STATUSES, type Refund } from '../domain/payment-link.ts';
import { randomBase62 } from '../domain/random.ts';
import type { EventLogEntry } from '../domain/webhook.ts';
import { type ConsoleMessages, consoleMessages } from './console-messages.ts';
import { CONSOLE_BASE, csrfField } from './console-page.ts';
import { answersText, buyerText, eraseLink } from './console-payment-cells.ts';
import { formatAmount, Html, html } from './html.ts';
import type { PaymentLinkResource } from './resources.ts';

/** A field's error, as the validation of the API reports it (`/amount/value`: "…"). */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** A timestamp as people read it, in UTC. */
export const when = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '–';

/** What the links list was asked for: one search at a time (a status with metadata, or a reference). */
export interface LinksSearch {
  status?: string | undefined;
  id?: string | undefined;
  reference?: string | undefined;
  metadataKey?: string | undefined;
  metadataValue?: string | undefined;
  /** Why the search could not run, under the field it is about. */
  problem?: { field: 'reference' | 'metadata_key'; text: string } | undefined;
}

function searchInput(name: string, label: string, value: string | undefined, search: LinksSearch, hint = '') {
  const problem = search.problem?.field === name ? search.problem.text : undefined;
  const described = problem ? new Html(` aria-invalid="true" aria-describedby="${name}-error"`) : '';
  return html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" value="${value ?? ''}"${hint ? html` placeholder="${hint}"` : ''}${described}>${problem ? html`<span class="error" id="${name}-error">${problem}</span>` : undefined}</div>`;
}

function linksCaption(search: LinksSearch, words: ConsoleMessages['links']): string {
  if (search.reference) return `${words.withReference} ${search.reference}`;
  if (search.metadataKey) return words.withMetadata(search.metadataKey, search.metadataValue ?? '');
  return words.newestFirst;
}

export function linksBody(
  links: PaymentLinkResource[],
  search: LinksSearch,
  next: string | undefined,
  language: PageLanguage = 'en',
): Html {
  const words = consoleMessages(language).links;
  const rows = links.map(
    (link) => html`<tr><td><a href="${CONSOLE_BASE}/links/${link.id}">${link.id}</a></td>
<td>${link.description ?? ''}</td><td>${link.amount ? formatAmount(link.amount, language) : words.buyerChooses}</td>
<td>${link.status}</td><td>${when(link.created_at)}</td></tr>`,
  );
  const statusOptions = LINK_STATUSES.map(
    (status) =>
      html`<option value="${status}"${search.status === status ? new Html(' selected') : ''}>${status}</option>`,
  );
  const kept = {
    ...(search.status && { status: search.status }),
    ...(search.metadataKey && {
      metadata_key: search.metadataKey,
      metadata_value: search.metadataValue ?? '',
    }),
  };
  const more = next
    ? html`<p><a href="${CONSOLE_BASE}/links?${new URLSearchParams({ ...kept, after: next }).toString()}">${words.older}</a></p>`
    : undefined;
  return html`<h1>${words.title}</h1>
<form method="get" action="${CONSOLE_BASE}/links" class="inline" role="search">
<div><label for="status">${words.status}</label><select id="status" name="status"><option value="">${words.anyStatus}</option>${statusOptions}</select></div>
${searchInput('metadata_key', words.metadataKey, search.metadataKey, search, 'order_id')}
${searchInput('metadata_value', words.metadataValue, search.metadataValue, search)}
${searchInput('id', words.linkId, search.id, search, 'pl_…')}
${searchInput('reference', words.reference, search.reference, search)}
<button type="submit">${words.filter}</button></form>
<table><caption class="muted">${linksCaption(search, words)}</caption>
<thead><tr><th scope="col">${words.link}</th><th scope="col">${words.description}</th><th scope="col">${words.amount}</th><th scope="col">${words.status}</th><th scope="col">${words.created}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.none}</td></tr>`}</tbody></table>${more}`;
}

/** A link's payments, with what each buyer gave as the account-wide list shows it (console-payment-cells.ts). */
function paymentsTable(payments: PaymentResource[], session: ConsoleSession): Html {
  const rows = payments.map(
    (
      payment,
    ) => html`<tr><td>${payment.id}</td><td>${payment.status}</td><td>${formatAmount(payment.amount)}</td>
<td>${payment.provider} (${payment.connection_id})</td>
<td>${payment.routing ? `${payment.routing.strategy}${payment.routing.rule ? `, rule ${payment.routing.rule}` : ''}` : '–'}</td>
<td>${payment.client_reference_id ?? '–'}</td><td>${buyerText(payment.buyer ?? null, session)}</td>
<td>${answersText(payment)}</td><td>${when(payment.created_at)}</td><td>${eraseLink(payment, session) ?? ''}</td></tr>`,
  );
  return html`<h2>Payments</h2><table><thead><tr><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Provider</th><th scope="col">Routing</th><th scope="col">Reference</th><th scope="col">Buyer</th><th scope="col">Answers</th><th scope="col">Started</th><th scope="col"><span class="muted">Personal data</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="10">No payments yet.</td></tr>`}</tbody></table>`;
}

function refundForm(session: ConsoleSession, link: PaymentLinkResource, payments: PaymentResource[]) {
  const paid = payments.filter((payment) => payment.status === 'succeeded');
  if (!paid.length || !mayPerform(session.role, 'refund.create')) return undefined;
  return html`<h2>Refund</h2><form method="post" action="${CONSOLE_BASE}/links/${link.id}/refunds" class="inline">${csrfField(session)}
<input type="hidden" name="idempotency_key" value="${randomBase62(22)}">
<div><label for="payment_id">Payment</label><select id="payment_id" name="payment_id">${paid.map(
    (payment) => html`<option value="${payment.id}">${payment.id} (${formatAmount(payment.amount)})</option>`,
  )}</select></div>
<div><label for="refund_amount">Amount (empty: all that is left)</label><input id="refund_amount" name="amount" inputmode="decimal"></div>
<button type="submit" class="danger">Refund</button></form>`;
}

function refundsTable(refunds: Refund[]): Html {
  const rows = refunds.map(
    (refund) => html`<tr><td>${refund.id}</td><td>${refund.payment_id}</td><td>${refund.status}</td>
<td>${formatAmount(refund.amount)}</td><td>${when(refund.created_at)}</td></tr>`,
  );
  return html`<h2>Refunds</h2><table><thead><tr><th scope="col">Refund</th><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">No refunds.</td></tr>`}</tbody></table>`;
}

function webhooksTable(events: EventLogEntry[]): Html {
  const rows = events.map(
    (
      event,
    ) => html`<tr><td><a href="${CONSOLE_BASE}/events/${event.id}">${event.type}</a></td><td>${event.status}</td><td>${when(event.created_at)}</td>
<td><ol>${event.attempts.map(
      (attempt) =>
        html`<li>${when(attempt.at)}: ${attempt.status_code ?? 'no answer'}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.duration_ms} ms</li>`,
    )}</ol>${event.attempt_count > event.attempts.length ? `${event.attempt_count} attempts in all` : ''}</td></tr>`,
  );
  return html`<h2>Webhooks</h2><table><thead><tr><th scope="col">Event</th><th scope="col">Delivery</th><th scope="col">Created</th><th scope="col">Attempts</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4">No events yet.</td></tr>`}</tbody></table>`;
}

/** The amount, or how it is made: the line items with their sum, or the range the buyer chooses in. */
function amountText(link: PaymentLinkResource): string {
  const items = link.line_items?.map(
    (item) =>
      `${item.quantity} × ${item.name} at ${formatAmount(item.unit_amount)}${item.adjustable_quantity?.enabled ? `, buyer picks ${item.adjustable_quantity.minimum} to ${item.adjustable_quantity.maximum}` : ''}`,
  );
  const fixed = link.amount ? formatAmount(link.amount) : undefined;
  if (items?.length) return `${fixed} (${items.join('; ')})`;
  if (fixed) return fixed;
  const range = link.amount_range;
  return range
    ? `chosen by the buyer, ${formatAmount({ value: range.minimum, currency: range.currency })} to ${formatAmount({ value: range.maximum, currency: range.currency })}`
    : 'chosen by the buyer';
}

/** What the link asks before the buyer pays: `collect`, then its own questions by label. */
function questionsText(link: PaymentLinkResource): string {
  const collect = link.collect ?? {};
  const details = Object.entries(collect).map(([detail, requirement]) =>
    typeof requirement === 'string'
      ? `${detail.replace('_', ' ')} (${requirement})`
      : `shipping address to ${requirement.countries.join(', ')}`,
  );
  const questions = (link.custom_fields ?? []).map(
    (field) => `“${field.label}” (${field.type}${field.optional ? ', optional' : ''})`,
  );
  return [...details, ...questions].join('; ') || 'nothing';
}

export interface LinkPageData {
  link: PaymentLinkResource;
  payments: PaymentResource[];
  refunds: Refund[];
  events: EventLogEntry[];
  notice?: string | undefined;
  errors?: readonly FieldError[];
}

export function linkBody(session: ConsoleSession, data: LinkPageData): Html {
  const { link } = data;
  const qr = new Html(
    encodeQR(link.checkout_url, 'svg', { ecc: 'medium', border: 4 }).replace(
      '<svg ',
      '<svg role="img" aria-label="QR code of the checkout URL" ',
    ),
  );
  const cancel =
    link.status === 'open' && mayPerform(session.role, 'link.cancel')
      ? html`<form method="post" action="${CONSOLE_BASE}/links/${link.id}/cancel">${csrfField(session)}<button type="submit" class="danger">Cancel link</button></form>`
      : undefined;
  return html`<h1>Link ${link.id}</h1>
${data.notice ? html`<p class="notice" role="status">${data.notice}</p>` : undefined}
${data.errors?.length ? html`<div class="error" role="alert"><ul>${data.errors.map((error) => html`<li>${error.detail}</li>`)}</ul></div>` : undefined}
<dl><dt>Status</dt><dd>${link.status}</dd>
<dt>Amount</dt><dd>${amountText(link)}</dd>
<dt>Description</dt><dd>${link.description ?? '–'}</dd>
<dt>Use</dt><dd>${link.reusable ? `reusable, ${link.succeeded_payments} of ${link.max_payments ?? 'any number of'} payments` : 'single payment'}</dd>
<dt>Asks the buyer</dt><dd>${questionsText(link)}</dd>
<dt>Payment methods</dt><dd>${link.payment_methods?.join(', ') ?? 'any'}</dd>
<dt>Checkout language</dt><dd>${link.locale ?? "the buyer's browser"}</dd>
<dt>Checkout URL</dt><dd><a href="${link.checkout_url}"><code>${link.checkout_url}</code></a></dd>
<dt>Expires</dt><dd>${when(link.expires_at)}</dd></dl>
<div class="qr">${qr}</div>
${cancel}
${paymentsTable(data.payments, session)}
${refundForm(session, link, data.payments)}
${refundsTable(data.refunds)}
${webhooksTable(data.events)}`;
}

export function auditBody(entries: AuditEntry[]): Html {
  const rows = entries.map(
    (
      entry,
    ) => html`<tr><td>${when(entry.at)}</td><td>${entry.user} (${entry.role})</td><td>${entry.action}</td>
<td>${entry.target ?? '–'}</td><td>${entry.mode}</td><td>${entry.source_ip}</td></tr>`,
  );
  return html`<h1>Audit log</h1><p>Every change made in the console, newest first.</p>
<table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Target</th><th scope="col">Mode</th><th scope="col">From</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">Nothing changed yet.</td></tr>`}</tbody></table>`;
}

/** The page for a visitor without a session: how to get one. */
export function signInBody(
  problem: string | undefined,
  hostedSignIn: string | undefined,
  words: ConsoleMessages = consoleMessages('en'),
): Html {
  const [before, between, after] = words.signInLocal;
  const how = hostedSignIn
    ? html`<p><a href="${hostedSignIn}">${words.signInButton}</a></p>`
    : html`<p>${before} <code>npm start</code> ${between}
<code>npm run console -- sign-in-link --account acct_demo --role admin</code>${after}</p>`;
  return html`<h1>${words.signInHeading}</h1>${problem ? html`<p class="error" role="alert">${problem}</p>` : undefined}${how}`;
}
