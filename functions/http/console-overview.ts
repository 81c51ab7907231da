import { OVERVIEW_MAX_PAYMENTS, OVERVIEW_WINDOWS, type OverviewWindow } from '../domain/console-overview.ts';
import { consoleOverview, type Overview, type OverviewDependencies } from '../use-cases/console-overview.ts';
import { type ConsoleSessionDependencies, resumeSession } from '../use-cases/console-sessions.ts';
import {
  amountChart,
  type Chart,
  connectionsChart,
  conversionChart,
  paymentsChart,
} from './console-charts.ts';
import { CONSOLE_BASE, consoleHttps, consolePage, consoleRedirect, sessionIdOf } from './console-page.ts';
import { Html, html } from './html.ts';
import type { HtmlEvent, HtmlResult } from './html-handler.ts';

export type OverviewPageDependencies = ConsoleSessionDependencies & OverviewDependencies;

const PATH = `${CONSOLE_BASE}/overview`;
const share = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)} %`);

/**
 * `GET /console/overview`, served by a function of its own (`console-overview`) because Vega is large: the
 * console's other pages do not carry it (docs/performance.md#bundles). The same session as every console page:
 * without one, to the sign-in page. Read only, for every role.
 */
export async function handleOverview(event: HtmlEvent, deps: OverviewPageDependencies): Promise<HtmlResult> {
  const https = consoleHttps(event);
  const session = await resumeSession(deps, sessionIdOf(event));
  if (!session) return consoleRedirect(`${CONSOLE_BASE}/sign-in`, https);
  const asked = Number(event.queryStringParameters?.days);
  const days: OverviewWindow = OVERVIEW_WINDOWS.find((window) => window === asked) ?? 14;
  const overview = await consoleOverview(deps, session, days);
  const charts = await Promise.all([
    paymentsChart(overview, {
      title: `Payments per day, last ${days} days`,
      description: `${total(overview, 'payments')} payments, ${total(overview, 'paid')} of them paid; the table below has each day.`,
    }),
    amountChart(overview, {
      title: `Amount paid per day, last ${days} days`,
      description: 'Bars by currency; the table below has each day.',
    }),
    conversionChart(overview, {
      title: `Conversion per day, last ${days} days`,
      description: 'The share of each day’s payments that were paid; the table below has each day.',
    }),
    connectionsChart(overview, {
      title: 'Paid share per payment provider connection, last 24 hours',
      description: 'The table below has each connection.',
    }),
  ]);
  return consolePage({
    title: 'Overview',
    https,
    session,
    path: PATH,
    body: overviewBody(overview, days, charts),
  });
}

const total = (overview: Overview, field: 'payments' | 'paid') =>
  overview.days.reduce((sum, day) => sum + day[field], 0);

const figure = (chart: Chart | undefined) =>
  chart
    ? html`<figure class="chart"><figcaption>${chart.title}</figcaption>${new Html(chart.svg)}</figure>`
    : undefined;

function overviewBody(overview: Overview, days: OverviewWindow, charts: Chart[]): Html {
  const [payments, amount, conversion, connections] = charts;
  const windows = OVERVIEW_WINDOWS.map((window) =>
    window === days
      ? html`<strong aria-current="page">${window} days</strong>`
      : html`<a href="${PATH}?days=${window}">${window} days</a>`,
  );
  const dayRows = [...overview.days].reverse().map(
    (day) => html`<tr><td>${day.day}</td><td>${day.payments}</td><td>${day.paid}</td>
<td>${
      Object.entries(day.amountPaid)
        .map(([currency, value]) => `${value} ${currency}`)
        .join(', ') || '–'
    }</td><td>${share(day.conversion)}</td></tr>`,
  );
  const connectionRows = overview.connections.map(
    (connection) =>
      html`<tr><td>${connection.name} <code>${connection.id}</code></td><td>${connection.opened}</td><td>${share(connection.paidShare)}</td></tr>`,
  );
  return html`<h1>Overview</h1>
<p>Window: ${windows[0]} · ${windows[1]}</p>
${overview.truncated ? html`<p class="notice" role="status">More than ${OVERVIEW_MAX_PAYMENTS} payments in this window: the oldest days count only some of theirs.</p>` : undefined}
${figure(payments)}${figure(amount)}${figure(conversion)}
<table><caption>Per day (UTC), newest first</caption><thead><tr><th scope="col">Day</th><th scope="col">Payments</th><th scope="col">Paid</th><th scope="col">Amount paid</th><th scope="col">Conversion</th></tr></thead>
<tbody>${dayRows}</tbody></table>
${figure(connections)}
<table><caption>Payment provider connections, last 24 hours</caption><thead><tr><th scope="col">Connection</th><th scope="col">Sessions opened</th><th scope="col">Paid share</th></tr></thead>
<tbody>${connectionRows.length ? connectionRows : html`<tr><td colspan="3">No connections.</td></tr>`}</tbody></table>`;
}
