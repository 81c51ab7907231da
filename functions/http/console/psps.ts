import { mayPerform } from '../../domain/console-access.ts';
import { ValidationError } from '../../domain/errors.ts';
import {
  type ConnectionResource,
  getRouting,
  listConnections,
  putRouting,
  type RoutingDependencies,
} from '../../use-cases/routing.ts';
import { routingRequest } from '../api/routing-schemas.ts';
import { type Html, html } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { validate } from '../validate.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, csrfField } from './page.ts';
import type { ConsoleRequest } from './request.ts';
import type { FieldError } from './views.ts';

export type PspPageDependencies = RoutingDependencies;

const PATH = `${CONSOLE_BASE}/psps`;

/** The PSPs page (connections, their health, fees and performance; the routing) and its one change. */
export async function pspRoutes(
  request: ConsoleRequest,
  deps: PspPageDependencies,
): Promise<HtmlResult | undefined> {
  switch (request.route) {
    case 'GET /console/psps':
      return pspsPage(request, deps, {
        notice:
          request.event.queryStringParameters?.notice === 'saved'
            ? consoleMessages(request.language).psps.saved
            : undefined,
      });
    case 'POST /console/routing':
      return saveRouting(request, deps);
    default:
      return undefined;
  }
}

/**
 * The routing as typed, parsed as the API parses `PUT /v1/routing`'s body: the same schema, then the same use
 * case, which refuses connections that are not the account's. Errors point where the API's would.
 */
async function saveRouting(request: ConsoleRequest, deps: PspPageDependencies): Promise<HtmlResult> {
  const typed = request.form.get('routing') ?? '';
  try {
    let body: unknown;
    try {
      body = JSON.parse(typed);
    } catch {
      throw new ValidationError([{ pointer: '', detail: 'The routing is not valid JSON.' }]);
    }
    await putRouting(deps, request.session, validate(routingRequest(), body));
    await request.audit('routing.edit', null);
    return consoleRedirect(`${PATH}?notice=saved`, request.https);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return pspsPage(request, deps, { errors: error.errors, typed, status: 422 });
  }
}

const share = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)} %`);

function connectionsTable(connections: ConnectionResource[], words: ConsoleMessages['psps']): Html {
  const rows = connections.map(
    (
      connection,
    ) => html`<tr><td>${connection.name}<br><code>${connection.id}</code></td><td>${connection.provider}</td>
<td>${connection.enabled ? words.enabled : words.disabled}</td><td>${connection.health}</td><td>${connection.methods.join(', ')}</td>
<td>${connection.fees.length ? connection.fees.map((fee) => `${fee.percent} % + ${fee.fixed}${fee.currency ? ` ${fee.currency}` : ''}${fee.method ? ` (${fee.method})` : ''}`).join('; ') : '–'}</td>
<td>${words.openedPaid(connection.performance.last_hour.opened, share(connection.performance.last_hour.paid_share))}</td>
<td>${words.openedPaid(connection.performance.last_24h.opened, share(connection.performance.last_24h.paid_share))}</td></tr>`,
  );
  return html`<table><thead><tr><th scope="col">${words.connection}</th><th scope="col">${words.provider}</th><th scope="col">${words.state}</th><th scope="col">${words.health}</th>
<th scope="col">${words.methods}</th><th scope="col">${words.fees}</th><th scope="col">${words.lastHour}</th><th scope="col">${words.last24h}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="8">${words.none}</td></tr>`}</tbody></table>`;
}

async function pspsPage(
  request: ConsoleRequest,
  deps: PspPageDependencies,
  extra: { notice?: string | undefined; errors?: FieldError[]; typed?: string; status?: number },
): Promise<HtmlResult> {
  const { session, language } = request;
  const words = consoleMessages(language).psps;
  const [connections, routing] = await Promise.all([
    listConnections(deps, session),
    getRouting(deps, session),
  ]);
  const editable = mayPerform(session.role, 'routing.edit');
  const routingText = extra.typed ?? JSON.stringify(routing, null, 2);
  const editor = editable
    ? html`<form method="post" action="${CONSOLE_BASE}/routing">${csrfField(session)}
<label for="routing">${words.routingLabel[0]} <code>PUT /v1/routing</code> ${words.routingLabel[1]}</label>
<textarea id="routing" name="routing" rows="14" cols="80" spellcheck="false">${routingText}</textarea>
<p><button type="submit">${words.saveRouting}</button></p></form>`
    : html`<pre>${routingText}</pre>`;
  const body = html`<h1>${words.title}</h1>
${extra.notice ? html`<p class="notice" role="status">${extra.notice}</p>` : undefined}
${extra.errors?.length ? html`<div class="error" role="alert"><p>${words.notSaved}</p><ul>${extra.errors.map((error) => html`<li>${error.pointer || 'routing'}: ${error.detail}</li>`)}</ul></div>` : undefined}
<h2>${words.connections}</h2>${connectionsTable(connections, words)}
<h2>${words.routing}</h2>${editor}`;
  return consolePage({
    status: extra.status ?? 200,
    title: words.title,
    language,
    https: request.https,
    session,
    path: PATH,
    body,
  });
}
