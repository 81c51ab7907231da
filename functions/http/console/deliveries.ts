import { type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import { eventLink } from '../../domain/link-events.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { attemptCount, type DeliveryAttempt, isLinkEvent, type StoredEvent } from '../../domain/webhook.ts';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import type { EventDeliveries } from '../../use-cases/events.ts';
import { type Html, html } from '../html.ts';
import type { WebhookTexts } from './messages/webhook-texts.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, csrfField, when } from './page.ts';

/**
 * Each recipient of an event as the merchant sees it (docs/console.md#webhooks): the link's `webhook_url`, or that
 * none is set, and each webhook endpoint by its URL, each with its own delivery.
 */
export interface Recipient {
  /** The endpoint's id; null for the link's own `webhook_url`. */
  endpointId: string | null;
  /** Where it went; null when the link has no `webhook_url` (nothing was sent: not a failure). */
  url: string | null;
  delivery: StoredEvent;
}

/** An event's recipients: its link's URL first (a link's event), then each endpoint it went to. */
export function recipientsOf(entry: EventDeliveries, endpoints: readonly WebhookEndpoint[]): Recipient[] {
  const { event, deliveries } = entry;
  const own: Recipient[] = isLinkEvent(event)
    ? [{ endpointId: null, url: eventLink(event).webhook_url ?? null, delivery: event }]
    : [];
  return [
    ...own,
    ...deliveries.map((delivery) => ({
      endpointId: delivery.endpoint_id ?? null,
      url: endpoints.find((endpoint) => endpoint.id === delivery.endpoint_id)?.url ?? null,
      delivery,
    })),
  ];
}

/** An event's type in words, with the API's own beside it for whoever looks it up in the docs. */
export const eventType = (type: StoredEvent['type'], language: PageLanguage): Html =>
  html`${consoleMessages(language).status.events[type]} <code>${type}</code>`;

export const answerOf = (attempt: DeliveryAttempt, words: WebhookTexts) =>
  `${attempt.status_code ?? words.noAnswer}${attempt.error ? ` (${attempt.error})` : ''}`;

/** Who a recipient is, in words: the endpoint's URL (its id when it is gone), or the link's URL or none. */
export function recipientName(recipient: Recipient, words: WebhookTexts): string {
  if (recipient.endpointId) return recipient.url ?? recipient.endpointId;
  return `${words.linkWebhookUrl}: ${recipient.url ?? words.noneSet}`;
}

function recipientCell(recipient: Recipient, words: WebhookTexts): Html {
  if (recipient.endpointId) {
    return html`<a href="${CONSOLE_BASE}/webhooks/${recipient.endpointId}"><code>${recipient.url ?? recipient.endpointId}</code></a>`;
  }
  return html`${words.linkWebhookUrl}: ${recipient.url ? html`<code>${recipient.url}</code>` : words.noneSet}`;
}

/**
 * The cells of one delivery: its status, attempts (how many, the latest answer), next retry and, for those who
 * may, a Redeliver button. A link without `webhook_url` shows "none set", not "failed": nothing was tried.
 */
export function deliveryCells(
  event: StoredEvent,
  recipient: Recipient,
  session: ConsoleSession,
  words: WebhookTexts,
): Html {
  const { delivery } = recipient;
  if (!recipient.endpointId && !recipient.url) return html`<td>–</td><td>–</td><td>–</td><td></td>`;
  const latest = delivery.attempts.at(-1);
  const attempts = latest
    ? words.attemptsSoFar(attemptCount(delivery), answerOf(latest, words))
    : words.noneYet;
  const retry = delivery.status === 'pending' ? when(delivery.outbox_due) : '–';
  const redeliver = mayPerform(session.role, 'event.redeliver')
    ? html`<form method="post" action="${CONSOLE_BASE}/events/${event.id}/redeliver">${csrfField(session)}<input type="hidden" name="recipient" value="${recipient.endpointId ?? 'link'}"><button type="submit" aria-label="${words.redeliverTo(event.id, recipientName(recipient, words))}">${words.redeliver}</button></form>`
    : '';
  return html`<td>${words.deliveryStatus[delivery.status]}</td><td>${attempts}</td><td>${retry}</td><td>${redeliver}</td>`;
}

/** The latest events, one row per recipient, the event's own cells spanning its recipients' rows. */
export function eventsTable(
  entries: readonly EventDeliveries[],
  endpoints: readonly WebhookEndpoint[],
  session: ConsoleSession,
  language: PageLanguage,
): Html {
  const words = consoleMessages(language).webhooks;
  const rows = entries.flatMap((entry) => {
    const { event } = entry;
    const recipients = recipientsOf(entry, endpoints);
    const span = Math.max(recipients.length, 1);
    const head = html`<td rowspan="${span}"><a href="${CONSOLE_BASE}/events/${event.id}">${event.id}</a></td><td rowspan="${span}">${eventType(event.type, language)}</td><td rowspan="${span}">${event.link_id ? html`<a href="${CONSOLE_BASE}/links/${event.link_id}">${event.link_id}</a>` : '–'}</td>`;
    if (!recipients.length) return [html`<tr>${head}<td colspan="5">${words.sentNowhere}</td></tr>`];
    return recipients.map(
      (recipient, index) =>
        html`<tr>${index === 0 ? head : ''}<td>${recipientCell(recipient, words)}</td>${deliveryCells(event, recipient, session, words)}</tr>`,
    );
  });
  return html`<table><thead><tr><th scope="col">${words.event}</th><th scope="col">${words.type}</th><th scope="col">${words.link}</th><th scope="col">${words.recipient}</th><th scope="col">${words.status}</th><th scope="col">${words.attempts}</th><th scope="col">${words.nextRetry}</th><th scope="col">${words.actions}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8">${words.noEvents}</td></tr>`}</tbody></table>`;
}

/** An event's recipients with every attempt of each: the answer, or the error, and how long it took. */
export function recipientsTable(
  entry: EventDeliveries,
  endpoints: readonly WebhookEndpoint[],
  session: ConsoleSession,
  words: WebhookTexts,
): Html {
  const rows = recipientsOf(entry, endpoints).map((recipient) => {
    const { attempts } = recipient.delivery;
    const log =
      recipient.url && attempts.length
        ? html`<ol>${attempts.map((attempt) => html`<li>${when(attempt.at)}: ${answerOf(attempt, words)}, ${attempt.duration_ms} ms</li>`)}</ol>`
        : '';
    return html`<tr><td>${recipientCell(recipient, words)}${log}</td>${deliveryCells(entry.event, recipient, session, words)}</tr>`;
  });
  return html`<table><thead><tr><th scope="col">${words.recipient}</th><th scope="col">${words.status}</th><th scope="col">${words.attempts}</th><th scope="col">${words.nextRetry}</th><th scope="col">${words.actions}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.sentNowhere}</td></tr>`}</tbody></table>`;
}
