import encodeQR from 'qr';
import type { CollectRequirement } from '../../domain/buyer.ts';
import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { PaymentResource } from '../../domain/payment.ts';
import { LINK_STATUSES, type Refund } from '../../domain/payment-link.ts';
import { randomBase62 } from '../../domain/random.ts';
import type { EventLogEntry } from '../../domain/webhook.ts';
import type { PaymentLinkResource } from '../api/resources.ts';
import { formatAmount, Html, html } from '../html.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';
import { answersText, buyerText, eraseLink, statusText } from './payment-cells.ts';
import { routingCell } from './routing-cell.ts';

/** A field's error, as the validation of the API reports it (`/amount/value`: "…"). */
export interface FieldError {
  pointer: string;
  detail: string;
}

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

/** A link's payments, with what each buyer gave as the account-wide list shows it (payment-cells.ts). */
function paymentsTable(payments: PaymentResource[], session: ConsoleSession, language: PageLanguage): Html {
  const { link: words, columns } = consoleMessages(language);
  const rows = payments.map(
    (
      payment,
    ) => html`<tr><td>${payment.id}</td><td>${statusText(payment, language)}</td><td>${formatAmount(payment.amount, language)}</td>
<td>${payment.provider} (${payment.connection_id})</td>
<td>${routingCell(payment.routing, language)}</td>
<td>${payment.client_reference_id ?? '–'}</td><td>${buyerText(payment.buyer ?? null, session, language)}</td>
<td>${answersText(payment, language)}</td><td>${when(payment.created_at)}</td><td>${eraseLink(payment, session, language) ?? ''}</td></tr>`,
  );
  return html`<h2>${consoleMessages(language).books.payments}</h2><table><thead><tr><th scope="col">${columns.payment}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.provider}</th><th scope="col">${columns.routing}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.buyer}</th><th scope="col">${columns.answers}</th><th scope="col">${columns.started}</th><th scope="col"><span class="muted">${columns.personalData}</span></th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="10">${words.noPayments}</td></tr>`}</tbody></table>`;
}

function refundForm(
  session: ConsoleSession,
  link: PaymentLinkResource,
  payments: PaymentResource[],
  language: PageLanguage,
) {
  const paid = payments.filter((payment) => payment.status === 'succeeded');
  if (!paid.length || !mayPerform(session.role, 'refund.create')) return undefined;
  const { link: words, columns } = consoleMessages(language);
  return html`<h2>${words.refundButton}</h2><form method="post" action="${CONSOLE_BASE}/links/${link.id}/refunds" class="inline">${csrfField(session)}
<input type="hidden" name="idempotency_key" value="${randomBase62(22)}">
<div><label for="payment_id">${columns.payment}</label><select id="payment_id" name="payment_id">${paid.map(
    (payment) =>
      html`<option value="${payment.id}">${payment.id} (${formatAmount(payment.amount, language)})</option>`,
  )}</select></div>
<div><label for="refund_amount">${words.refundAmount}</label><input id="refund_amount" name="amount" inputmode="decimal"></div>
<button type="submit" class="danger">${words.refundButton}</button></form>`;
}

function refundsTable(refunds: Refund[], language: PageLanguage): Html {
  const { link: words, columns, books } = consoleMessages(language);
  const rows = refunds.map(
    (refund) => html`<tr><td>${refund.id}</td><td>${refund.payment_id}</td><td>${refund.status}</td>
<td>${formatAmount(refund.amount, language)}</td><td>${when(refund.created_at)}</td></tr>`,
  );
  return html`<h2>${books.refunds}</h2><table><thead><tr><th scope="col">${columns.refund}</th><th scope="col">${columns.payment}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${columns.created}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.noRefunds}</td></tr>`}</tbody></table>`;
}

function webhooksTable(events: EventLogEntry[], language: PageLanguage): Html {
  const { link: words, columns } = consoleMessages(language);
  const rows = events.map(
    (
      event,
    ) => html`<tr><td><a href="${CONSOLE_BASE}/events/${event.id}">${event.type}</a></td><td>${event.status}</td><td>${when(event.created_at)}</td>
<td><ol>${event.attempts.map(
      (attempt) =>
        html`<li>${when(attempt.at)}: ${attempt.status_code ?? words.noAnswer}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.duration_ms} ms</li>`,
    )}</ol>${event.attempt_count > event.attempts.length ? words.attemptsInAll(event.attempt_count) : ''}</td></tr>`,
  );
  return html`<h2>${words.webhooks}</h2><table><thead><tr><th scope="col">${columns.event}</th><th scope="col">${columns.delivery}</th><th scope="col">${columns.created}</th><th scope="col">${columns.attempts}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="4">${words.noEvents}</td></tr>`}</tbody></table>`;
}

/** The amount, or how it is made: the line items with their sum, or the range the buyer chooses in. */
function amountText(link: PaymentLinkResource, language: PageLanguage): string {
  const words = consoleMessages(language).link;
  const money = (amount: { value: string; currency: string }) => formatAmount(amount, language);
  const items = link.line_items?.map((item) => {
    const picks = item.adjustable_quantity?.enabled
      ? `, ${words.buyerPicks(item.adjustable_quantity.minimum, item.adjustable_quantity.maximum)}`
      : '';
    return `${words.lineItem(item.quantity, item.name, money(item.unit_amount))}${picks}`;
  });
  const fixed = link.amount ? money(link.amount) : undefined;
  if (items?.length) return `${fixed} (${items.join('; ')})`;
  if (fixed) return fixed;
  const range = link.amount_range;
  return range
    ? words.chosenBetween(
        money({ value: range.minimum, currency: range.currency }),
        money({ value: range.maximum, currency: range.currency }),
      )
    : words.chosenByBuyer;
}

/** What the link asks before the buyer pays: `collect`, then its own questions by label. */
function questionsText(link: PaymentLinkResource, language: PageLanguage): string {
  const words = consoleMessages(language).link;
  const { shipping_address: shipping, ...asked } = link.collect ?? {};
  const details = Object.entries(asked).map(
    ([detail, requirement]) =>
      `${words.details[detail as keyof typeof asked]} (${words.requirement[requirement as CollectRequirement]})`,
  );
  if (shipping) details.push(words.shippingTo(shipping.countries.join(', ')));
  const questions = (link.custom_fields ?? []).map(
    (field) => `“${field.label}” (${field.type}${field.optional ? `, ${words.requirement.optional}` : ''})`,
  );
  return [...details, ...questions].join('; ') || words.nothing;
}

export interface LinkPageData {
  link: PaymentLinkResource;
  payments: PaymentResource[];
  refunds: Refund[];
  events: EventLogEntry[];
  notice?: string | undefined;
  errors?: readonly FieldError[];
}

export function linkBody(session: ConsoleSession, data: LinkPageData, language: PageLanguage): Html {
  const { link } = data;
  const { link: words, columns } = consoleMessages(language);
  const qr = new Html(
    encodeQR(link.checkout_url, 'svg', { ecc: 'medium', border: 4 }).replace(
      '<svg ',
      html`<svg role="img" aria-label="${words.qrLabel}" `.value,
    ),
  );
  const cancel =
    link.status === 'open' && mayPerform(session.role, 'link.cancel')
      ? html`<form method="post" action="${CONSOLE_BASE}/links/${link.id}/cancel">${csrfField(session)}<button type="submit" class="danger">${words.cancel}</button></form>`
      : undefined;
  return html`<h1>${words.title(link.id)}</h1>
${data.notice ? html`<p class="notice" role="status">${data.notice}</p>` : undefined}
${data.errors?.length ? html`<div class="error" role="alert"><ul>${data.errors.map((error) => html`<li>${error.detail}</li>`)}</ul></div>` : undefined}
<dl><dt>${columns.status}</dt><dd>${link.status}</dd>
<dt>${columns.amount}</dt><dd>${amountText(link, language)}</dd>
<dt>${columns.description}</dt><dd>${link.description ?? '–'}</dd>
<dt>${words.use}</dt><dd>${link.reusable ? words.reusable(link.succeeded_payments, link.max_payments) : words.singlePayment}</dd>
<dt>${words.asks}</dt><dd>${questionsText(link, language)}</dd>
<dt>${words.paymentMethods}</dt><dd>${link.payment_methods?.join(', ') ?? words.anyMethod}</dd>
<dt>${words.checkoutLanguage}</dt><dd>${link.locale ?? words.buyersBrowser}</dd>
<dt>${words.checkoutUrl}</dt><dd><a href="${link.checkout_url}"><code>${link.checkout_url}</code></a></dd>
<dt>${words.expires}</dt><dd>${when(link.expires_at)}</dd></dl>
<div class="qr">${qr}</div>
${cancel}
${paymentsTable(data.payments, session, language)}
${refundForm(session, link, data.payments, language)}
${refundsTable(data.refunds, language)}
${webhooksTable(data.events, language)}`;
}
