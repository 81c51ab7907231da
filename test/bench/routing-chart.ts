import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHECKOUTS, type StrategyResult, WINDOW } from './routing-simulation.ts';

/** One world over its seeds, as bench row 80-routing sums it up. */
export interface WorldSummary {
  world: string;
  title: string;
  seeds: number[];
  /** Each target's value per seed (in the seeds' order), their median and the worst. */
  targets: {
    name: string;
    values: number[];
    median: number;
    worst: number;
    budget: { max?: number; min?: number };
  }[];
  /** Each seed's uplift interval for `conversion` and the true difference, in points. */
  uplift: { seed: number; estimate: number; low: number; high: number; truth: number }[];
}

/**
 * The charts of docs/orchestration.md#measured-routing-that-learns, drawn with Vega-Lite and rendered to SVG without
 * a browser (Vega's headless view): each strategy's paid share over issue 36's stream, and every world's seeds.
 */
const CONFIG = {
  axis: { labelFontSize: 12, titleFontSize: 13 },
  legend: { labelFontSize: 12, titleFontSize: 13 },
  title: { fontSize: 15 },
};

async function svgOf(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  // The SVG's fonts are named, not embedded: "sans-serif" renders anywhere.
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}

/** Each strategy's paid share over the stream of issue 36's world, one point per `WINDOW` checkouts. */
export async function routingChartSvg(results: readonly StrategyResult[]): Promise<string> {
  const values = results.flatMap((result) =>
    result.series.map((share, index) => ({
      strategy: result.strategy,
      checkout: (index + 1) * WINDOW,
      paid_share: share,
    })),
  );
  return svgOf({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Paid share per ${WINDOW} checkouts: A falls from 0.85 to 0.55 after checkout ${Math.round(CHECKOUTS / 3)}`,
    width: 640,
    height: 300,
    config: CONFIG,
    data: { values },
    layer: [
      {
        mark: { type: 'line', interpolate: 'monotone' },
        encoding: {
          x: { field: 'checkout', type: 'quantitative', title: 'Checkouts' },
          y: {
            field: 'paid_share',
            type: 'quantitative',
            title: 'Paid share',
            scale: { domain: [0.4, 0.95] },
            axis: { format: '%' },
          },
          color: { field: 'strategy', type: 'nominal', title: 'Strategy' },
        },
      },
      {
        data: { values: [{ drift: Math.round(CHECKOUTS / 3) }] },
        mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' },
        encoding: { x: { field: 'drift', type: 'quantitative' } },
      },
    ],
  } as TopLevelSpec);
}

/**
 * Every world over its seeds: `conversion`'s points below the oracle (a dot per seed, the median as a bar, the
 * target as a dashed line), and the uplift each seed's holdout measured (its 95% interval) beside the true one.
 */
export async function worldsChartSvg(summaries: readonly WorldSummary[], target: number): Promise<string> {
  const below = summaries.flatMap((summary) => {
    const gap = summary.targets[0];
    return (gap?.values ?? []).map((points, index) => ({
      world: summary.world,
      seed: summary.seeds[index],
      points,
      median: gap?.median,
    }));
  });
  const medians = summaries.map((summary) => ({ world: summary.world, median: summary.targets[0]?.median }));
  const uplift = summaries.flatMap((summary) =>
    summary.uplift.map((u) => ({
      world: summary.world,
      seed: String(u.seed),
      low: u.low,
      high: u.high,
      truth: u.truth,
      covered: u.low <= u.truth && u.truth <= u.high ? 'covers the truth' : 'misses the truth',
    })),
  );
  const order = summaries.map((summary) => summary.world);
  const world = { field: 'world', type: 'nominal', title: 'World', sort: order };
  return svgOf({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    config: CONFIG,
    vconcat: [
      {
        title: {
          text: [
            '`conversion` (its learning arm) below the oracle, in points',
            `a dot per seed (${summaries[0]?.seeds.length ?? 0} a world), the bar its median, dashed the ${target}-point target`,
          ],
        },
        width: 640,
        height: 36 * summaries.length,
        layer: [
          {
            data: { values: below },
            mark: { type: 'circle', size: 60, opacity: 0.6, color: '#1d4ed8' },
            encoding: {
              y: world,
              x: { field: 'points', type: 'quantitative', title: 'Points below the oracle' },
            },
          },
          {
            data: { values: medians },
            mark: { type: 'tick', thickness: 3, size: 26, color: '#111827' },
            encoding: { y: world, x: { field: 'median', type: 'quantitative' } },
          },
          {
            data: { values: [{ target }] },
            mark: { type: 'rule', strokeDash: [6, 4], color: '#b91c1c', strokeWidth: 2 },
            encoding: { x: { field: 'target', type: 'quantitative' } },
          },
        ],
      },
      {
        title: {
          text: [
            'Uplift of `conversion` over its 5% holdout, in points',
            "each seed's 95% interval (a bar) and the true difference (a dot)",
          ],
        },
        width: 640,
        height: 60 * summaries.length,
        data: { values: uplift },
        layer: [
          {
            mark: { type: 'rule', strokeWidth: 2, color: '#6b7280' },
            encoding: {
              y: world,
              yOffset: { field: 'seed', type: 'nominal' },
              x: { field: 'low', type: 'quantitative', title: 'Learning less holdout (points)' },
              x2: { field: 'high' },
            },
          },
          {
            mark: { type: 'point', filled: true, size: 30 },
            encoding: {
              y: world,
              yOffset: { field: 'seed', type: 'nominal' },
              x: { field: 'truth', type: 'quantitative' },
              color: {
                field: 'covered',
                type: 'nominal',
                title: 'The interval',
                scale: { domain: ['covers the truth', 'misses the truth'], range: ['#15803d', '#b91c1c'] },
              },
            },
          },
        ],
      },
    ],
  } as TopLevelSpec);
}
