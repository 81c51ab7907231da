import type { ConsoleSession } from '../../domain/console-access.ts';
import { NotFoundError } from '../../domain/errors.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { PaymentResource } from '../../domain/payment.ts';
import type { Refund } from '../../domain/payment-link.ts';
import type { EventLogEntry } from '../../domain/webhook.ts';
import { getPaymentLink } from '../../use-cases/link-transitions.ts';
import { listPayments } from '../../use-cases/payments.ts';
import { listRefunds } from '../../use-cases/refunds.ts';
import { listLinkEvents } from '../../use-cases/webhooks.ts';
import { formatAmount, type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import type { LinkPageDependencies } from './links.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, when } from './page.ts';
import {
  answersText,
  buyerText,
  connectionNames,
  connectionText,
  eraseLink,
  remainingOf,
  statusText,
} from './payment-cells.ts';
import { type RefundAsked, readRefund, refundable, refundConfirmation, refundForm } from './refund-dialog.ts';
import type { ConsoleRequest } from './request.ts';
import { routingCell } from './routing-cell.ts';

export type PaymentPageDependencies = LinkPageDependencies;

/** A payment's own page (docs/console.md#a-payments-page); undefined for any other route. */
export async function paymentRoutes(
  request: ConsoleRequest,
  deps: PaymentPageDependencies,
): Promise<HtmlResult | undefined> {
  switch (request.route) {
    case 'GET /console/links/{id}/payments/{payment_id}':
      return paymentPage(request, deps);
    case 'GET /console/links/{id}/payments/{payment_id}/refund':
      return refundReview(request, deps);
    default:
      return undefined;
  }
}

/**
 * The refund dialog's second step: the amount and reason as they were read, to confirm; or the payment's page
 * again, the form saying what could not be read.
 */
async function refundReview(request: ConsoleRequest, deps: PaymentPageDependencies): Promise<HtmlResult> {
  const query = request.event.queryStringParameters ?? {};
  const asked = { amount: query.amount ?? '', reason: query.reason ?? '', detail: query.detail ?? '' };
  const { session, language } = request;
  const { payment } = await paymentOf(request, deps);
  const read = readRefund(payment, asked, language);
  if ('problem' in read) return paymentPage(request, deps, { ...asked, problem: read.problem });
  return consolePage({
    title: consoleMessages(language).payment.refundTitle,
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/payments`,
    language,
    body: refundConfirmation(payment, read, session, language),
  });
}

/** The payment of the route, of the session's account and mode (its link is read first), or `404`. */
async function paymentOf(request: ConsoleRequest, deps: PaymentPageDependencies) {
  const { id = '', payment_id: paymentId = '' } = request.event.pathParameters ?? {};
  // The link first: another account's, or the other mode's, is not found before anything else is read.
  await getPaymentLink(deps, request.session, id);
  const payments = await listPayments(deps, request.session, id);
  const payment = payments.find((candidate) => candidate.id === paymentId);
  if (!payment) throw new NotFoundError(`No payment ${paymentId}.`);
  return { payment: { ...payment, link_id: id }, id, paymentId };
}

async function paymentPage(
  request: ConsoleRequest,
  deps: PaymentPageDependencies,
  asked?: RefundAsked & { problem: string },
): Promise<HtmlResult> {
  const { session, language } = request;
  const { payment, id, paymentId } = await paymentOf(request, deps);
  const [refunds, events, names] = await Promise.all([
    listRefunds(deps, session, id),
    listLinkEvents(deps, session, id, paymentId),
    connectionNames(deps.psps, session),
  ]);
  const page = { payment, link_id: id, names, session, language };
  const ofPayment = refunds.filter((refund) => refund.payment_id === paymentId);
  const words = consoleMessages(language).payment;
  const notice =
    request.event.queryStringParameters?.notice === 'refunded' ? words.refundRequested : undefined;
  return consolePage({
    status: asked ? 400 : 200,
    title: words.title(paymentId),
    https: request.https,
    session,
    path: `${CONSOLE_BASE}/payments`,
    language,
    body: html`${paymentDetails(page, notice)}${refundable(payment, session) ? refundForm(payment, language, asked) : ''}${timeline(page, ofPayment, events)}`,
  });
}

interface PaymentView {
  payment: PaymentResource;
  link_id: string;
  names: ReadonlyMap<string, string>;
  session: ConsoleSession;
  language: PageLanguage;
}

/** What the payment is: its money, why it failed, where it went and why, the buyer and their answers. */
function paymentDetails({ payment, link_id, names, session, language }: PaymentView, notice?: string): Html {
  const { payment: words, columns } = consoleMessages(language);
  const money = (amount: PaymentResource['fee']) => (amount ? formatAmount(amount, language) : words.unknown);
  return html`<h1>${words.title(payment.id)}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : undefined}
<dl><dt>${columns.status}</dt><dd>${statusText(payment, language)}</dd>
<dt>${words.amount}</dt><dd>${money(payment.amount)}</dd>
<dt>${words.refunded}</dt><dd>${money(payment.amount_refunded)}</dd>
<dt>${words.remaining}</dt><dd>${money(remainingOf(payment))}</dd>
<dt>${words.fee}</dt><dd>${money(payment.fee)}</dd>
<dt>${words.net}</dt><dd>${money(payment.net)}</dd>
${payment.failure ? html`<dt>${words.failure}</dt><dd><code>${payment.failure.code}</code>: ${payment.failure.message}</dd>` : ''}
<dt>${columns.link}</dt><dd><a href="${CONSOLE_BASE}/links/${link_id}">${link_id}</a></dd>
<dt>${words.connection}</dt><dd>${connectionText(payment, names)}</dd>
<dt>${words.pspReference}</dt><dd>${payment.provider_reference ?? '–'}</dd>
<dt>${columns.reference}</dt><dd>${payment.client_reference_id ?? '–'}</dd>
<dt>${columns.buyer}</dt><dd>${buyerText(payment.buyer ?? null, session, language)}</dd>
<dt>${columns.answers}</dt><dd>${answersText(payment, language)}</dd>
<dt>${columns.routing}</dt><dd>${routingCell(payment.routing, language)}</dd></dl>
${eraseLink(payment, session, language) ?? ''}`;
}

/** What happened to the payment, oldest first, each with its time: its opening, its events, its refunds. */
function timeline(
  { payment, names, language }: PaymentView,
  refunds: Refund[],
  events: EventLogEntry[],
): Html {
  const words = consoleMessages(language).payment;
  const settledBy = ['payment_link.paid', 'payment_link.payment_failed'];
  const entries: { at: string; text: Html | string }[] = [
    { at: payment.created_at, text: words.opened(connectionText(payment, names)) },
    ...events.map((event) => ({
      at: event.created_at,
      text: html`<a href="${CONSOLE_BASE}/events/${event.id}">${words.event(consoleMessages(language).status.events[event.type])}</a>`,
    })),
    ...refunds.map((refund) => ({
      at: refund.created_at,
      text: words.refund(
        refund.id,
        formatAmount(refund.amount, language),
        consoleMessages(language).status.refund[refund.status],
      ),
    })),
  ];
  // A payment that settled without an event of its own (declined on the PSP's page) says when it last changed.
  if (payment.updated_at !== payment.created_at && !events.some((event) => settledBy.includes(event.type))) {
    entries.push({
      at: payment.updated_at,
      text: words.lastChange(consoleMessages(language).status.payment[payment.status]),
    });
  }
  const sorted = entries.sort((a, b) => a.at.localeCompare(b.at));
  return html`<h2>${words.timeline}</h2><ol class="timeline">${sorted.map((entry) => html`<li><span class="nowrap">${when(entry.at)}</span>: ${entry.text}</li>`)}</ol>`;
}
