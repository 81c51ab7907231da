import { NotFoundError } from '../../domain/errors.ts';
import { type EventsDependencies, getEvent, listEndpointDeliveries } from '../../use-cases/events.ts';
import { type EndpointDependencies, listWebhookEndpoints } from '../../use-cases/webhook-endpoints.ts';
import { html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { deliveryCells, eventType, recipientsTable } from './deliveries.ts';
import { consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, when } from './page.ts';
import type { ConsoleRequest } from './request.ts';

/** What an event's page and an endpoint's read: the events and their deliveries, the endpoints. */
export type EventPageDependencies = EventsDependencies & EndpointDependencies;

/** The latest events an endpoint's page looks among for its deliveries. */
const EVENTS_SEARCHED = 50;

/** One event and each of its recipients (the link's webhook URL or that none is set, every endpoint) with their attempts. */
export async function eventPage(
  request: ConsoleRequest,
  deps: EventPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const [{ event, deliveries }, endpoints] = await Promise.all([
    getEvent(deps, request.session, id),
    listWebhookEndpoints(deps, request.session),
  ]);
  const { language, session } = request;
  const words = consoleMessages(language).webhooks;
  // getEvent leaves out the link's own delivery when it has no webhook_url; its recipients say "none set".
  const endpointDeliveries = deliveries.filter((delivery) => delivery.endpoint_id);
  const body = html`<h1>${words.eventTitle(event.id)}</h1>
<dl><dt>${words.type}</dt><dd>${eventType(event.type, language)}</dd><dt>${words.created}</dt><dd>${when(event.created_at)}</dd>
<dt>${words.link}</dt><dd>${event.link_id ? html`<a href="${CONSOLE_BASE}/links/${event.link_id}">${event.link_id}</a>` : '–'}</dd></dl>
<h2>${words.deliveries}</h2>${recipientsTable({ event, deliveries: endpointDeliveries }, endpoints, session, words)}`;
  return consolePage({ title: words.eventTitle(event.id), https: request.https, session, language, body });
}

/** A webhook endpoint of the caller's and its deliveries among the latest events; another's is `404`. */
export async function endpointPage(
  request: ConsoleRequest,
  deps: EventPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const { language, session } = request;
  const endpoint = (await listWebhookEndpoints(deps, session)).find((candidate) => candidate.id === id);
  if (!endpoint) throw new NotFoundError(`No webhook endpoint ${id}.`);
  const deliveries = await listEndpointDeliveries(deps, session, id, EVENTS_SEARCHED);
  const words = consoleMessages(language).webhooks;
  const recipient = { endpointId: id, url: endpoint.url };
  const rows = deliveries.map(
    (delivery) =>
      html`<tr><td><a href="${CONSOLE_BASE}/events/${delivery.id}">${delivery.id}</a></td><td>${eventType(delivery.type, language)}</td><td>${when(delivery.created_at)}</td>${deliveryCells(delivery, { ...recipient, delivery }, session, words)}</tr>`,
  );
  const body = html`<h1>${words.endpointTitle(endpoint.url)}</h1>
<dl><dt>${words.endpoint}</dt><dd>${endpoint.id}</dd><dt>${words.status}</dt><dd>${consoleMessages(language).status.endpoint[endpoint.status]}</dd>
<dt>${words.events}</dt><dd>${endpoint.enabled_events.join(', ')}</dd>
<dt>${words.description}</dt><dd>${endpoint.description ?? '–'}</dd></dl>
<h2>${words.recentDeliveries(EVENTS_SEARCHED)}</h2>
<table><thead><tr><th scope="col">${words.event}</th><th scope="col">${words.type}</th><th scope="col">${words.created}</th><th scope="col">${words.status}</th><th scope="col">${words.attempts}</th><th scope="col">${words.nextRetry}</th><th scope="col">${words.actions}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="7">${words.noDeliveries}</td></tr>`}</tbody></table>`;
  return consolePage({
    title: words.endpointTitle(endpoint.url),
    https: request.https,
    session,
    language,
    body,
  });
}
