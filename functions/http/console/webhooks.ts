import { mayPerform } from '../../domain/console-access.ts';
import { ValidationError } from '../../domain/errors.ts';
import type { StoredEvent } from '../../domain/webhook.ts';
import { TEST_EVENT_WAIT_MS, type WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import { getEvent, listEvents } from '../../use-cases/events.ts';
import { type StartRecoveryDependencies, startRecovery } from '../../use-cases/recovery.ts';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  rotateEndpointSecret,
  type SealingDependencies,
  sendTestEvent,
  type TestEventDependencies,
  type TestEventOutcome,
  updateWebhookEndpoint,
} from '../../use-cases/webhook-endpoints.ts';
import { type EventLogDependencies, redeliverEvent } from '../../use-cases/webhooks.ts';
import {
  createWebhookEndpointRequest,
  recoverRequest,
  updateWebhookEndpointRequest,
} from '../api/webhook-endpoint-schemas.ts';
import { type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { problemOf } from '../problem-types.ts';
import { validate } from '../validate.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, csrfField, when } from './page.ts';
import type { ConsoleRequest } from './request.ts';
import type { FieldError } from './views.ts';

export type WebhookPageDependencies = SealingDependencies &
  EventLogDependencies &
  Pick<StartRecoveryDependencies, 'recoveries'> & {
    events: EventLogDependencies['events'] &
      Parameters<typeof listEvents>[0]['events'] &
      TestEventDependencies['events'];
    queue: Parameters<typeof redeliverEvent>[0]['queue'];
    allowPrivateTargets: boolean;
  };

/** Events shown on the page: the latest ones, newest first. */
const EVENTS_SHOWN = 25;
const PATH = `${CONSOLE_BASE}/webhooks`;

/** The webhooks page and its changes; undefined for any other route. */
export async function webhookRoutes(
  request: ConsoleRequest,
  deps: WebhookPageDependencies,
): Promise<HtmlResult | undefined> {
  const id = request.event.pathParameters?.id ?? '';
  switch (request.route) {
    case 'GET /console/webhooks':
      return webhooksPage(request, deps, { notice: request.event.queryStringParameters?.notice });
    case 'POST /console/webhooks':
      return createEndpoint(request, deps);
    case 'POST /console/webhooks/{id}/status':
      return change(request, deps, async () => {
        const status = request.form.get('status') === 'enabled' ? 'enabled' : 'disabled';
        const changes = validate(
          updateWebhookEndpointRequest(request.session.mode, deps.allowPrivateTargets),
          { status },
        );
        await updateWebhookEndpoint(deps, request.session, id, changes);
        await request.audit('webhook.manage', id);
        return consoleRedirect(`${PATH}?notice=${status}`, request.https);
      });
    case 'POST /console/webhooks/{id}/rotate':
      return change(request, deps, async () => {
        const rotated = await rotateEndpointSecret(deps, request.session, id);
        await request.audit('webhook.manage', id);
        return webhooksPage(request, deps, {
          secret: {
            endpoint: rotated.endpoint,
            secret: rotated.secret,
            until: rotated.previous_secret_expires_at,
          },
        });
      });
    case 'POST /console/webhooks/{id}/test':
      return change(request, deps, async () => {
        const outcome = await sendTestEvent({ ...deps, waitMs: TEST_EVENT_WAIT_MS }, request.session, id);
        await request.audit('webhook.manage', id);
        return webhooksPage(request, deps, {
          noticeText: testEventNotice(consoleMessages(request.language).webhooks, outcome, id),
        });
      });
    case 'POST /console/webhooks/{id}/recover':
      return change(request, deps, async () => {
        const { since } = validate(recoverRequest(), { since: request.form.get('since')?.trim() ?? '' });
        await startRecovery(deps, request.session, id, since);
        await request.audit('webhook.manage', id);
        return consoleRedirect(`${PATH}?notice=recovering`, request.https);
      });
    case 'GET /console/events/{id}':
      return eventPage(request, deps, id);
    case 'POST /console/events/{id}/redeliver':
      return change(request, deps, async () => {
        await redeliverEvent(deps, request.session, id);
        await request.audit('event.redeliver', id);
        return consoleRedirect(`${PATH}?notice=redelivered`, request.https);
      });
    default:
      return undefined;
  }
}

async function createEndpoint(request: ConsoleRequest, deps: WebhookPageDependencies): Promise<HtmlResult> {
  const events = request.form.getAll('enabled_events');
  return change(request, deps, async () => {
    const input = validate(createWebhookEndpointRequest(request.session.mode, deps.allowPrivateTargets), {
      url: request.form.get('url')?.trim() ?? '',
      enabled_events: events.length ? events : ['*'],
      description: request.form.get('description')?.trim() || null,
    });
    const created = await createWebhookEndpoint(deps, request.session, input);
    await request.audit('webhook.manage', created.endpoint.id);
    return webhooksPage(request, deps, {
      secret: { endpoint: created.endpoint, secret: created.secret },
      status: 201,
    });
  });
}

/** What the endpoint answered the test event, or that delivery goes on without a wait. */
function testEventNotice(words: Words, outcome: TestEventOutcome, endpointId: string): string {
  const { attempt } = outcome;
  if (!attempt) return words.testPending(outcome.event_id, endpointId);
  const answer = `${attempt.status_code ?? words.nothing}${attempt.error ? ` (${attempt.error})` : ''}`;
  return words.testAnswered(outcome.event_id, endpointId, answer, attempt.duration_ms);
}

/** A change; a refusal the API answers with a 4xx is shown on the page in the API's words. */
async function change(
  request: ConsoleRequest,
  deps: WebhookPageDependencies,
  run: () => Promise<HtmlResult>,
): Promise<HtmlResult> {
  try {
    return await run();
  } catch (error) {
    const problem = problemOf(error);
    if (problem.status >= 500 || problem.status === 404) throw error;
    const errors =
      error instanceof ValidationError ? error.errors : [{ pointer: '', detail: problem.detail }];
    return webhooksPage(request, deps, { errors, status: problem.status });
  }
}

interface PageExtra {
  notice?: string | undefined;
  /** A notice of its own words (a test event's outcome). */
  noticeText?: string;
  errors?: FieldError[];
  status?: number;
  /** A new secret, shown this once. */
  secret?: { endpoint: WebhookEndpoint; secret: string; until?: string };
}

type Words = ConsoleMessages['webhooks'];

const noticeOf = (notices: Words['notices'], name: string | undefined) =>
  name && Object.hasOwn(notices, name) ? notices[name as keyof Words['notices']] : undefined;

async function webhooksPage(request: ConsoleRequest, deps: WebhookPageDependencies, extra: PageExtra) {
  const [endpoints, feed] = await Promise.all([
    listWebhookEndpoints(deps, request.session),
    listEvents(deps, request.session, { limit: EVENTS_SHOWN }),
  ]);
  const admin = mayPerform(request.session.role, 'webhook.manage');
  const { session, language } = request;
  const words = consoleMessages(language).webhooks;
  const notice = extra.noticeText ?? noticeOf(words.notices, extra.notice);
  const body = html`<h1>${words.title}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : undefined}
${extra.errors?.length ? html`<div class="error" role="alert"><ul>${extra.errors.map((error) => html`<li>${error.pointer ? `${error.pointer}: ` : ''}${error.detail}</li>`)}</ul></div>` : undefined}
${extra.secret ? secretNotice(extra.secret, words) : undefined}
<h2>${words.endpoints}</h2>${endpointsTable(endpoints, admin ? session : undefined, words)}
${admin ? createForm(request, words) : undefined}
<h2>${words.latestEvents}</h2>${eventsTable(feed.events, mayPerform(session.role, 'event.redeliver') ? session : undefined, words)}`;
  return consolePage({
    status: extra.status ?? 200,
    title: words.title,
    https: request.https,
    session,
    path: PATH,
    language,
    body,
  });
}

function secretNotice(shown: NonNullable<PageExtra['secret']>, words: Words): Html {
  return html`<div class="notice" role="status"><p>${words.secretShown(shown.endpoint.url)}
${shown.until ? words.previousSecretUntil(shown.until) : ''}</p><p><code>${shown.secret}</code></p></div>`;
}

function endpointsTable(
  endpoints: WebhookEndpoint[],
  session: ConsoleRequest['session'] | undefined,
  words: Words,
): Html {
  const rows = endpoints.map((endpoint) => {
    const enable = endpoint.status !== 'enabled';
    const actions = session
      ? html`<form method="post" action="${PATH}/${endpoint.id}/status">${csrfField(session)}<input type="hidden" name="status" value="${enable ? 'enabled' : 'disabled'}"><button type="submit" aria-label="${enable ? words.enableLabel(endpoint.id) : words.disableLabel(endpoint.id)}">${enable ? words.enable : words.disable}</button></form>
<form method="post" action="${PATH}/${endpoint.id}/rotate">${csrfField(session)}<button type="submit" aria-label="${words.rotateLabel(endpoint.id)}">${words.rotate}</button></form>
<form method="post" action="${PATH}/${endpoint.id}/test">${csrfField(session)}<button type="submit" aria-label="${words.sendTestLabel(endpoint.id)}">${words.sendTest}</button></form>
<form method="post" action="${PATH}/${endpoint.id}/recover" class="inline">${csrfField(session)}<input name="since" aria-label="${words.recoverSinceLabel(endpoint.id)}" placeholder="2026-11-28T09:00:00Z" size="22"><button type="submit" aria-label="${words.recoverLabel(endpoint.id)}">${words.recover}</button></form>`
      : undefined;
    return html`<tr><td>${endpoint.id}</td><td><code>${endpoint.url}</code></td><td>${endpoint.enabled_events.join(', ')}</td><td>${endpoint.status}</td><td>${actions}</td></tr>`;
  });
  return html`<table><thead><tr><th scope="col">${words.endpoint}</th><th scope="col">${words.url}</th><th scope="col">${words.events}</th><th scope="col">${words.status}</th><th scope="col">${words.actions}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="5">${words.noEndpoints}</td></tr>`}</tbody></table>`;
}

function createForm(request: ConsoleRequest, words: Words): Html {
  return html`<h3>${words.addTitle}</h3><form method="post" action="${PATH}" class="inline">${csrfField(request.session)}
<div><label for="endpoint_url">${words.url}</label><input id="endpoint_url" name="url" type="url" required size="40"></div>
<div><label for="endpoint_description">${words.description}</label><input id="endpoint_description" name="description"></div>
<button type="submit">${words.add}</button></form>`;
}

function eventsTable(
  events: StoredEvent[],
  session: ConsoleRequest['session'] | undefined,
  words: Words,
): Html {
  const rows = events.map((event) => {
    const attempts = event.attempts.map(
      (attempt) =>
        html`<li>${when(attempt.at)}: ${attempt.status_code ?? words.noAnswer}${attempt.error ? ` (${attempt.error})` : ''}</li>`,
    );
    const redeliver = session
      ? html`<form method="post" action="${CONSOLE_BASE}/events/${event.id}/redeliver">${csrfField(session)}<button type="submit" aria-label="${words.redeliverLabel(event.id)}">${words.redeliver}</button></form>`
      : undefined;
    return html`<tr><td><a href="${CONSOLE_BASE}/events/${event.id}">${event.id}</a></td><td>${event.type}</td><td>${event.link_id ? html`<a href="${CONSOLE_BASE}/links/${event.link_id}">${event.link_id}</a>` : '–'}</td>
<td>${event.status}</td><td>${attempts.length ? html`<ol>${attempts}</ol>` : words.noAttempts}</td><td>${redeliver}</td></tr>`;
  });
  return html`<table><thead><tr><th scope="col">${words.event}</th><th scope="col">${words.type}</th><th scope="col">${words.link}</th><th scope="col">${words.delivery}</th><th scope="col">${words.attempts}</th><th scope="col">${words.actions}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${words.noEvents}</td></tr>`}</tbody></table>`;
}

/** One event and each of its deliveries (the link's webhook URL, every endpoint) with their attempts. */
async function eventPage(
  request: ConsoleRequest,
  deps: WebhookPageDependencies,
  id: string,
): Promise<HtmlResult> {
  const { event, deliveries } = await getEvent(deps, request.session, id);
  const { language } = request;
  const words = consoleMessages(language).webhooks;
  const rows = deliveries.map(
    (delivery) => html`<tr><td>${delivery.endpoint_id ?? words.linkWebhookUrl}</td><td>${delivery.status}</td>
<td>${delivery.attempts.length ? html`<ol>${delivery.attempts.map((attempt) => html`<li>${when(attempt.at)}: ${attempt.status_code ?? words.noAnswer}${attempt.error ? ` (${attempt.error})` : ''}, ${attempt.duration_ms} ms</li>`)}</ol>` : words.noneYet}</td></tr>`,
  );
  const body = html`<h1>${words.eventTitle(event.id)}</h1>
<dl><dt>${words.type}</dt><dd>${event.type}</dd><dt>${words.created}</dt><dd>${when(event.created_at)}</dd>
<dt>${words.link}</dt><dd>${event.link_id ? html`<a href="${CONSOLE_BASE}/links/${event.link_id}">${event.link_id}</a>` : '–'}</dd></dl>
<h2>${words.deliveries}</h2><table><thead><tr><th scope="col">${words.to}</th><th scope="col">${words.status}</th><th scope="col">${words.attempts}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="3">${words.sentNowhere}</td></tr>`}</tbody></table>`;
  return consolePage({
    title: words.eventTitle(event.id),
    https: request.https,
    session: request.session,
    language,
    body,
  });
}
