import {
  OVERVIEW_MAX_PAYMENTS,
  OVERVIEW_WINDOWS,
  type OverviewWindow,
} from '../../domain/console-overview.ts';
import { UPLIFT_WINDOWS, type UpliftFigures } from '../../domain/uplift.ts';
import {
  consoleOverview,
  type Overview,
  type OverviewDependencies,
} from '../../use-cases/console-overview.ts';
import { type ConsoleSessionDependencies, resumeSession } from '../../use-cases/console-sessions.ts';
import { Html, html } from '../html.ts';
import type { HtmlEvent, HtmlResult } from '../html-handler.ts';
import {
  amountChart,
  type Chart,
  connectionsChart,
  conversionChart,
  paymentsChart,
  upliftChart,
} from './charts.ts';
import { type ConsoleMessages, consoleLanguage, loadConsoleMessages } from './messages.ts';
import { CONSOLE_BASE, consoleHttps, consolePage, consoleRedirect, sessionIdOf } from './page.ts';

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
  const language = consoleLanguage(event);
  const words = (await loadConsoleMessages(language)).overview;
  const session = await resumeSession(deps, sessionIdOf(event));
  if (!session) return consoleRedirect(`${CONSOLE_BASE}/sign-in`, https);
  const asked = Number(event.queryStringParameters?.days);
  const days: OverviewWindow = OVERVIEW_WINDOWS.find((window) => window === asked) ?? 14;
  const overview = await consoleOverview(deps, session, days);
  const charts = await Promise.all([
    paymentsChart(overview, words, {
      title: words.paymentsTitle(days),
      description: words.paymentsDescription(total(overview, 'payments'), total(overview, 'paid')),
    }),
    amountChart(overview, words, { title: words.amountTitle(days), description: words.amountDescription }),
    conversionChart(overview, words, {
      title: words.conversionTitle(days),
      description: words.conversionDescription,
    }),
    connectionsChart(overview, words, {
      title: words.connectionsTitle,
      description: words.connectionsDescription,
    }),
    hasUplift(overview)
      ? upliftChart(upliftRows(overview, words), words, {
          title: words.upliftTitle(upliftDays(overview)),
          description: words.upliftDescription,
        })
      : undefined,
  ]);
  const body = overviewBody(overview, { days, charts, words });
  return consolePage({ title: words.title, https, session, path: PATH, language, body });
}

const total = (overview: Overview, field: 'payments' | 'paid') =>
  overview.days.reduce((sum, day) => sum + day[field], 0);

const figure = (chart: Chart | undefined) =>
  chart
    ? html`<figure class="chart"><figcaption>${chart.title}</figcaption>${new Html(chart.svg)}</figure>`
    : undefined;

function overviewBody(
  overview: Overview,
  shown: { days: OverviewWindow; charts: (Chart | undefined)[]; words: ConsoleMessages['overview'] },
): Html {
  const { days, words } = shown;
  const [payments, amount, conversion, connections, uplift] = shown.charts;
  const windows = OVERVIEW_WINDOWS.map((window) =>
    window === days
      ? html`<strong aria-current="page">${words.days(window)}</strong>`
      : html`<a href="${PATH}?days=${window}">${words.days(window)}</a>`,
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
  return html`<h1>${words.title}</h1>
<p>${words.window}: ${windows[0]} · ${windows[1]}</p>
${overview.truncated ? html`<p class="notice" role="status">${words.truncated(OVERVIEW_MAX_PAYMENTS)}</p>` : undefined}
${figure(payments)}${figure(amount)}${figure(conversion)}
<table><caption>${words.perDay}</caption><thead><tr><th scope="col">${words.day}</th><th scope="col">${words.payments}</th><th scope="col">${words.paid}</th><th scope="col">${words.amountPaid}</th><th scope="col">${words.conversion}</th></tr></thead>
<tbody>${dayRows}</tbody></table>
${figure(connections)}
<table><caption>${words.connectionsCaption}</caption><thead><tr><th scope="col">${words.connection}</th><th scope="col">${words.opened}</th><th scope="col">${words.paidShare}</th></tr></thead>
<tbody>${connectionRows.length ? connectionRows : html`<tr><td colspan="3">${words.noConnections}</td></tr>`}</tbody></table>
${figure(uplift)}${upliftTable(overview, words)}`;
}

const upliftDays = (overview: Overview) => UPLIFT_WINDOWS[overview.uplift.window];
const hasUplift = (overview: Overview) => overview.uplift.rules.some((rule) => rule.difference_points);

/** All rules together first (when there are several), then each rule. */
function upliftRows(overview: Overview, words: ConsoleMessages['overview']) {
  const { overall, rules } = overview.uplift;
  return [
    ...(rules.length > 1 ? [{ label: words.allRules, figures: overall }] : []),
    ...rules.map((rule) => ({ label: `${rule.rule} (${rule.goal})`, figures: rule as UpliftFigures })),
  ];
}

const signed = (value: number) => `${value > 0 ? '+' : ''}${value}`;

/** The uplift's figures, each rule a row: the chart's dots and intervals, the arms and what they imply. */
function upliftTable(overview: Overview, words: ConsoleMessages['overview']): Html {
  const arm = (figures: UpliftFigures['learning']) => words.arm(figures.checkouts, share(figures.paid_share));
  const rows = upliftRows(overview, words).map(({ label, figures }) => {
    const difference = figures.difference_points;
    const extra = figures.extra_payments;
    return html`<tr><th scope="row">${label}</th><td>${arm(figures.learning)}</td><td>${arm(figures.holdout)}</td>
<td>${difference ? `${words.interval(signed(difference.estimate), signed(difference.low), signed(difference.high))}, ${difference.excludes_zero ? words.beyondChance : words.maybeChance}` : '–'}</td>
<td>${extra ? words.interval(signed(extra.estimate), signed(extra.low), signed(extra.high)) : '–'}</td>
<td>${figures.extra_amount.map((amount) => `${words.interval(amount.estimate, amount.low, amount.high)} ${amount.currency}`).join(', ') || '–'}</td></tr>`;
  });
  return html`<table><caption>${words.upliftCaption(upliftDays(overview))}</caption><thead><tr><th scope="col">${words.rule}</th><th scope="col">${words.learning}</th><th scope="col">${words.holdout}</th><th scope="col">${words.difference}</th><th scope="col">${words.extraPayments}</th><th scope="col">${words.extraAmount}</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6">${words.noUplift}</td></tr>`}</tbody></table>
${rows.length && !hasUplift(overview) ? html`<p>${words.noUplift}</p>` : undefined}`;
}
