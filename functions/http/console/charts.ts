import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { UpliftFigures } from '../../domain/uplift.ts';
import type { Overview } from '../../use-cases/console-overview.ts';
import { escapeHtml } from '../html.ts';
import type { ConsoleMessages } from './messages.ts';

/**
 * The overview's charts, drawn on the server by Vega-Lite into SVG (Vega's headless view, no browser, no script
 * in the page). Each SVG is one image to assistive technology (`role="img"` with a `<title>` and `<desc>`); the
 * figures themselves are in the table beside it.
 */
export interface Chart {
  name: string;
  title: string;
  /** One sentence saying what the chart shows; the table beside it has every figure. */
  description: string;
  svg: string;
}

/** One chart's mark and encoding (or its layers), as Vega-Lite takes them; the data and common settings are added. */
type Layer = { mark: unknown; encoding: Record<string, unknown> } | { layer: object[]; height: number };

async function svgOf(chart: Omit<Chart, 'svg'>, values: object[], spec: Layer): Promise<Chart> {
  const full = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 560,
    height: 160,
    data: { values },
    // The SVG is one image with its own title and description: Vega's per-mark ARIA would repeat the table.
    // Axis and legend text at 12 px at least (Vega's default is 10 and 11): read at the page's own size.
    config: {
      aria: false,
      font: 'system-ui, sans-serif',
      axis: { labelFontSize: 12, titleFontSize: 12 },
      legend: { labelFontSize: 12, titleFontSize: 12 },
    },
    ...spec,
  } as TopLevelSpec;
  const view = new View(parse(compile(full).spec), { renderer: 'none' });
  try {
    // Vega marks its groups and marks with ARIA roles of their own; inside one image they would be parts nobody
    // can reach, so they go, and the root becomes the image, named by its title and described by its desc.
    const drawn = (await view.toSVG()).replace(/ (role|aria-roledescription|aria-label)="[^"]*"/g, '');
    const id = `chart-${chart.name}`;
    const label = `<title id="${id}-title">${escapeHtml(chart.title)}</title><desc id="${id}-desc">${escapeHtml(chart.description)}</desc>`;
    const svg = drawn
      .replace(/^<svg /, `<svg role="img" aria-labelledby="${id}-title" aria-describedby="${id}-desc" `)
      .replace(/>/, `>${label}`);
    return { ...chart, svg };
  } finally {
    view.finalize();
  }
}

type Words = ConsoleMessages['overview'];
type Labels = { title: string; description: string };

/** Every day of the window on the x axis, days without a bar included. */
const dayAxis = (words: Words, overview: Overview) => ({
  field: 'day',
  type: 'ordinal',
  title: words.day,
  axis: { labelAngle: -45 },
  scale: { domain: overview.days.map((day) => day.day.slice(5)) },
});

/** Payments per day, and how many of them were paid. */
export function paymentsChart(overview: Overview, words: Words, labels: Labels) {
  const values = overview.days.flatMap((day) => [
    { day: day.day.slice(5), kind: words.paid, count: day.paid },
    { day: day.day.slice(5), kind: words.notPaid, count: day.payments - day.paid },
  ]);
  return svgOf({ name: 'payments', ...labels }, values, {
    mark: 'bar',
    encoding: {
      x: dayAxis(words, overview),
      y: { field: 'count', type: 'quantitative', title: words.payments, axis: { tickMinStep: 1 } },
      color: {
        field: 'kind',
        type: 'nominal',
        title: null,
        scale: { domain: [words.paid, words.notPaid], range: ['#1b7f3b', '#9ca3af'] },
      },
    },
  });
}

/** The amount paid per day, one colour per currency. */
export function amountChart(overview: Overview, words: Words, labels: Labels) {
  const values = overview.days.flatMap((day) => {
    return Object.entries(day.amountPaid).map(([currency, value]) => ({
      day: day.day.slice(5),
      currency,
      amount: Number(value),
    }));
  });
  return svgOf({ name: 'amount', ...labels }, values, {
    mark: 'bar',
    encoding: {
      x: dayAxis(words, overview),
      y: { field: 'amount', type: 'quantitative', title: words.amountPaid },
      color: { field: 'currency', type: 'nominal', title: words.currency },
    },
  });
}

/** The share of each day's payments that were paid. */
export function conversionChart(overview: Overview, words: Words, labels: Labels) {
  const values = overview.days.map((day) => ({ day: day.day.slice(5), conversion: day.conversion }));
  return svgOf({ name: 'conversion', ...labels }, values, {
    mark: { type: 'line', point: true },
    encoding: {
      x: dayAxis(words, overview),
      y: {
        field: 'conversion',
        type: 'quantitative',
        title: words.paidShare,
        axis: { format: '%' },
        scale: { domain: [0, 1] },
      },
    },
  });
}

/** Each connection's paid share over the last 24 hours. */
export function connectionsChart(overview: Overview, words: Words, labels: Labels) {
  const values = overview.connections.map((connection) => ({
    connection: connection.name,
    share: connection.paidShare ?? 0,
  }));
  return svgOf({ name: 'connections', ...labels }, values, {
    mark: 'bar',
    encoding: {
      y: { field: 'connection', type: 'nominal', title: null },
      x: {
        field: 'share',
        type: 'quantitative',
        title: words.paidShare,
        axis: { format: '%' },
        scale: { domain: [0, 1] },
      },
    },
  });
}

/**
 * What routing that learns earned: each rule's difference in paid share from its holdout (points) as a dot on its
 * 95% interval, all rules together first, and the line of no difference.
 */
export function upliftChart(
  rows: readonly { label: string; figures: UpliftFigures }[],
  words: Words,
  labels: Labels,
) {
  const values = rows.flatMap(({ label, figures }) =>
    figures.difference_points ? [{ label, ...figures.difference_points }] : [],
  );
  // A rule's name and goal, whole: Vega cuts labels at 180 px by default.
  const y = { field: 'label', type: 'nominal', title: null, sort: null, axis: { labelLimit: 320 } };
  return svgOf({ name: 'uplift', ...labels }, values, {
    height: 40 + 32 * values.length,
    layer: [
      {
        mark: { type: 'rule', strokeWidth: 3, color: '#1d4ed8' },
        encoding: {
          y,
          x: { field: 'low', type: 'quantitative', title: words.upliftAxis },
          x2: { field: 'high' },
        },
      },
      {
        mark: { type: 'point', filled: true, size: 90, color: '#1d4ed8' },
        encoding: { y, x: { field: 'estimate', type: 'quantitative' } },
      },
      {
        data: { values: [{ zero: 0 }] },
        mark: { type: 'rule', color: '#374151', strokeDash: [4, 4] },
        encoding: { x: { field: 'zero', type: 'quantitative' } },
      },
    ],
  });
}
