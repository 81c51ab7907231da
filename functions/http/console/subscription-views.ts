import type { ConsoleSession } from '../../domain/console-access.ts';
import { mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { Payment } from '../../domain/payment.ts';
import { isTerminal, nextChargeAt, type Subscription } from '../../domain/subscription.ts';
import type { SubscriptionApiResource } from '../api/subscription-resources.ts';
import { formatAmount, type Html, html } from '../html.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';
import { paymentPath } from './payment-cells.ts';
import type { FieldError } from './views.ts';

/** The subscriptions list, a subscription's page and its cancel confirmation (docs/console.md#subscriptions). */

/** The list's filters, by the API's names. */
export interface SubscriptionFilters {
  status?: string | undefined;
  link_id?: string | undefined;
  connection_id?: string | undefined;
}

const PATH = `${CONSOLE_BASE}/subscriptions`;

type Terms = Pick<Subscription, 'amount' | 'recurring'>;

/** What it charges how often: "€10.00 every month". */
const termsText = ({ amount, recurring }: Terms, language: PageLanguage) =>
  consoleMessages(language).subscription.every(
    formatAmount(amount, language),
    recurring.interval_count,
    recurring.interval,
  );

/** Its status in words, and that it ends with its period when it was canceled so. */
function statusText(subscription: SubscriptionApiResource | Subscription, language: PageLanguage): string {
  const words = consoleMessages(language).subscription;
  const status = words.statuses[subscription.status];
  return subscription.cancel_at_period_end && !isTerminal(subscription.status)
    ? `${status}, ${words.endsAtPeriodEnd(when(subscription.current_period_end))}`
    : status;
}

/** The connection its mandate is pinned to, by its name and provider (as a payment's, `connectionText`). */
const connectionOf = (
  { mandate }: { mandate: { connection_id: string; provider: string } },
  names: ReadonlyMap<string, string>,
) => `${names.get(mandate.connection_id) ?? mandate.connection_id} (${mandate.provider})`;

function filterInput(
  name: 'link_id' | 'connection_id',
  label: string,
  value: string | undefined,
  errors: readonly FieldError[],
) {
  const problem = errors.filter((error) => error.pointer === `/${name}`).map((error) => error.detail);
  const described = problem.length ? html` aria-invalid="true" aria-describedby="${name}-error"` : '';
  return html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" value="${value ?? ''}"${described}>${problem.length ? html`<span class="error" id="${name}-error">${problem.join(' ')}</span>` : undefined}</div>`;
}

/** The list: the API's filters (GET, so a filtered list can be bookmarked), the table, the next page. */
export function subscriptionsBody(options: {
  subscriptions: readonly SubscriptionApiResource[];
  filters: SubscriptionFilters;
  errors: readonly FieldError[];
  names: ReadonlyMap<string, string>;
  next: string | undefined;
  statuses: readonly Subscription['status'][];
  language: PageLanguage;
}): Html {
  const { filters, errors, language } = options;
  const { subscription: words, books, columns } = consoleMessages(language);
  const statuses = options.statuses.map(
    (status) =>
      html`<option value="${status}"${filters.status === status ? html` selected` : ''}>${words.statuses[status]}</option>`,
  );
  const query = Object.entries(filters).flatMap(([key, value]) =>
    value ? [[key, value] as [string, string]] : [],
  );
  const more = options.next
    ? html`<p><a href="${PATH}?${new URLSearchParams([...query, ['cursor', options.next]]).toString()}">${books.older}</a></p>`
    : undefined;
  return html`<h1>${words.title}</h1>
<form method="get" action="${PATH}" class="inline" role="search">
<div><label for="status">${columns.status}</label><select id="status" name="status"><option value="">${books.anyStatus}</option>${statuses}</select></div>
${filterInput('link_id', books.linkId, filters.link_id, errors)}${filterInput('connection_id', books.connectionId, filters.connection_id, errors)}
<button type="submit">${books.filter}</button></form>
${subscriptionsTable(options.subscriptions, options.names, language)}${more}`;
}

function subscriptionsTable(
  subscriptions: readonly SubscriptionApiResource[],
  names: ReadonlyMap<string, string>,
  language: PageLanguage,
): Html {
  const { subscription: words, columns } = consoleMessages(language);
  const rows = subscriptions.map(
    (subscription) => html`<tr><td><a href="${PATH}/${subscription.id}">${subscription.id}</a></td>
<td class="nowrap">${when(subscription.created_at)}</td><td>${statusText(subscription, language)}</td>
<td>${termsText(subscription, language)}</td><td class="nowrap">${when(subscription.next_charge_at)}</td>
<td>${connectionOf(subscription, names)}</td><td>${subscription.client_reference_id ?? '–'}</td>
<td><a href="${CONSOLE_BASE}/links/${subscription.link_id}">${subscription.link_id}</a></td></tr>`,
  );
  return html`<table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${words.subscription}</th><th scope="col">${columns.created}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${words.nextCharge}</th><th scope="col">${words.connection}</th><th scope="col">${columns.reference}</th><th scope="col">${columns.link}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8">${words.none}</td></tr>`}</tbody></table>`;
}

export interface SubscriptionView {
  subscription: Subscription;
  renewals: readonly Payment[];
  names: ReadonlyMap<string, string>;
  session: ConsoleSession;
  language: PageLanguage;
  notice?: string | undefined;
  problem?: string | undefined;
}

/** A subscription's page: what it is and where it stands, its latest failure, its renewals, the cancel. */
export function subscriptionBody(view: SubscriptionView): Html {
  const { subscription, language } = view;
  const words = consoleMessages(language).subscription;
  const notice =
    view.notice === 'canceled'
      ? words.canceledNotice
      : view.notice === 'ending'
        ? words.endingNotice
        : undefined;
  return html`<h1>${words.titleOf(subscription.id)}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : undefined}
${view.problem ? html`<p class="error" role="alert">${view.problem}</p>` : undefined}
${details(view)}${failure(subscription, language)}${renewalsTable(view)}${cancelForm(subscription, view.session, language)}`;
}

/** Its next charge: when, or why none is coming. */
function nextChargeText(subscription: Subscription, language: PageLanguage): string {
  const words = consoleMessages(language).subscription;
  const next = nextChargeAt(subscription);
  if (next) return when(next);
  if (subscription.cancel_at_period_end && !isTerminal(subscription.status)) {
    return words.endsAtPeriodEnd(when(subscription.current_period_end));
  }
  return words.noNextCharge;
}

function details({ subscription, names, language }: SubscriptionView): Html {
  const { subscription: words, columns } = consoleMessages(language);
  const { recurring } = subscription;
  const terms = [
    termsText(subscription, language),
    ...(recurring.trial_days ? [words.trialDays(recurring.trial_days)] : []),
    ...(recurring.cycles === null ? [] : [words.cycles(recurring.cycles)]),
  ].join(', ');
  const metadata = Object.entries(subscription.metadata ?? {});
  const canceled = subscription.canceled_at
    ? `${when(subscription.canceled_at)}${subscription.cancellation_reason ? ` (${words.cancellationReasons[subscription.cancellation_reason]})` : ''}`
    : undefined;
  const firstPayment = { id: subscription.first_payment_id, link_id: subscription.link_id };
  return html`<dl><dt>${columns.status}</dt><dd>${words.statuses[subscription.status]}</dd>
<dt>${columns.amount}</dt><dd>${terms}</dd>
<dt>${words.currentPeriod}</dt><dd>${words.period(subscription.current_period, when(subscription.current_period_start), when(subscription.current_period_end))}</dd>
<dt>${words.periodsPaid}</dt><dd>${subscription.periods_paid}</dd>
<dt>${words.nextCharge}</dt><dd>${nextChargeText(subscription, language)}</dd>
${canceled ? html`<dt>${words.canceledAt}</dt><dd>${canceled}</dd>` : undefined}
${subscription.ended_at ? html`<dt>${words.endedAt}</dt><dd>${when(subscription.ended_at)}</dd>` : undefined}
<dt>${words.connection}</dt><dd>${connectionOf(subscription, names)}</dd>
<dt>${words.mandate}</dt><dd>${subscription.mandate.display ?? subscription.mandate.method}</dd>
<dt>${columns.link}</dt><dd><a href="${CONSOLE_BASE}/links/${subscription.link_id}">${subscription.link_id}</a></dd>
<dt>${words.firstPayment}</dt><dd><a href="${paymentPath(firstPayment)}">${firstPayment.id}</a></dd>
<dt>${columns.reference}</dt><dd>${subscription.client_reference_id ?? '–'}</dd>
<dt>${columns.description}</dt><dd>${subscription.description ?? '–'}</dd>
<dt>${words.metadata}</dt><dd>${metadata.length ? html`<ul>${metadata.map(([key, value]) => html`<li><code>${key}</code>: ${value}</li>`)}</ul>` : '–'}</dd>
<dt>${columns.created}</dt><dd>${when(subscription.created_at)}</dd></dl>`;
}

/** The latest declined renewal, and the period being collected: attempts declined, what comes next, the update link. */
function failure(subscription: Subscription, language: PageLanguage): Html | undefined {
  const words = consoleMessages(language).subscription;
  const latest = subscription.latest_failure;
  if (!latest) return undefined;
  const { dunning } = subscription;
  const due = when(subscription.due_at);
  const collecting = dunning
    ? html`<p>${words.failedAttempts(dunning.failed_attempts, dunning.period)}${dunning.update_link_id ? '' : `, ${dunning.next === 'retry' ? words.nextRetry(due) : words.givingUp(due)}`}.
${dunning.update_link_id ? html` ${words.updateLink}: <a href="${CONSOLE_BASE}/links/${dunning.update_link_id}">${dunning.update_link_id}</a>` : undefined}</p>`
    : undefined;
  return html`<h2>${words.latestFailure}</h2>
<p><span class="nowrap">${when(latest.at)}</span>, ${words.periodName(latest.period)}: ${words.declineClasses[latest.class]}, <code>${latest.code}</code>: ${latest.message}</p>
${collecting}`;
}

function renewalsTable({ subscription, renewals, language }: SubscriptionView): Html {
  const { subscription: words, columns, status } = consoleMessages(language);
  const rows = renewals.map(
    (
      payment,
    ) => html`<tr><td><a href="${PATH}/${subscription.id}/payments/${payment.id}">${payment.id}</a></td><td class="nowrap">${when(payment.created_at)}</td>
<td>${status.payment[payment.status]}</td><td class="nowrap">${payment.amount ? formatAmount(payment.amount, language) : '–'}</td>
<td>${payment.decline ? html`${words.declineClasses[payment.decline.class]}, <code>${payment.decline.code}</code>` : '–'}</td></tr>`,
  );
  return html`<h2>${words.renewals}</h2><table><caption class="muted">${words.newestFirst}</caption><thead><tr><th scope="col">${columns.payment}</th><th scope="col">${columns.created}</th><th scope="col">${columns.status}</th><th scope="col">${columns.amount}</th><th scope="col">${words.decline}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.noRenewals}</td></tr>`}</tbody></table>`;
}

/** A renewal: one period's payment, its decline and the PSP's reference, and the subscription it renews. */
export function renewalBody(
  subscription: Subscription,
  renewal: Payment,
  names: ReadonlyMap<string, string>,
  language: PageLanguage,
): Html {
  const { payment: words, subscription: subscriptionWords, columns, status } = consoleMessages(language);
  const failure = renewal.failure
    ? html`<dt>${words.failure}</dt><dd><code>${renewal.failure.code}</code>: ${renewal.failure.message}</dd>`
    : undefined;
  const decline = renewal.decline
    ? html`<dt>${subscriptionWords.decline}</dt><dd>${subscriptionWords.declineClasses[renewal.decline.class]}, <code>${renewal.decline.code}</code></dd>`
    : undefined;
  return html`<h1>${words.title(renewal.id)}</h1>
<dl><dt>${columns.status}</dt><dd>${status.payment[renewal.status]}</dd>
<dt>${words.amount}</dt><dd>${renewal.amount ? formatAmount(renewal.amount, language) : '–'}</dd>
${failure}${decline}
<dt>${subscriptionWords.subscription}</dt><dd><a href="${PATH}/${subscription.id}">${subscription.id}</a></dd>
<dt>${words.connection}</dt><dd>${names.get(renewal.connection_id) ?? renewal.connection_id} (${renewal.provider})</dd>
<dt>${words.pspReference}</dt><dd>${renewal.provider_reference ?? '–'}</dd>
<dt>${columns.created}</dt><dd>${when(renewal.created_at)}</dd></dl>`;
}

/** Now or at the period's end: a GET to the confirmation, for a role that may cancel a subscription not over. */
function cancelForm(subscription: Subscription, session: ConsoleSession, language: PageLanguage) {
  if (isTerminal(subscription.status) || !mayPerform(session.role, 'subscription.cancel')) return undefined;
  const words = consoleMessages(language).subscription;
  const atEnd = subscription.cancel_at_period_end
    ? undefined
    : html` <button type="submit" name="when" value="period_end">${words.cancelAtPeriodEnd}</button>`;
  return html`<h2>${words.cancel}</h2><form method="get" action="${PATH}/${subscription.id}/cancel" class="inline">
<button type="submit" name="when" value="now" class="danger">${words.cancelNow}</button>${atEnd}</form>`;
}

/** The confirmation: what the cancel does, in words; its button cancels. */
export function cancelConfirmation(
  subscription: Subscription,
  atPeriodEnd: boolean,
  session: ConsoleSession,
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).subscription;
  const question = atPeriodEnd
    ? words.confirmAtPeriodEnd(subscription.id, when(subscription.current_period_end))
    : words.confirmNow(subscription.id);
  return html`<h1>${question}</h1>
${atPeriodEnd && subscription.status === 'past_due' ? html`<p>${words.pastDueNow}</p>` : undefined}
<p>${termsText(subscription, language)}, ${words.statuses[subscription.status]}</p>
<form method="post" action="${PATH}/${subscription.id}/cancel">${csrfField(session)}
<input type="hidden" name="at_period_end" value="${atPeriodEnd ? 'true' : 'false'}">
<button type="submit" class="danger">${words.confirm}</button>
<a href="${PATH}/${subscription.id}">${words.back}</a></form>`;
}
