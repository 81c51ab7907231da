import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { CHECKOUTS, type StrategyResult, WINDOW } from './routing-simulation.ts';

/**
 * The chart of docs/orchestration.md#measured: each strategy's paid share over the simulated stream, one point per
 * `WINDOW` checkouts. Drawn with Vega-Lite, rendered to SVG without a browser (Vega's headless view).
 */
export async function routingChartSvg(results: readonly StrategyResult[]): Promise<string> {
  const values = results.flatMap((result) =>
    result.series.map((share, index) => ({
      strategy: result.strategy,
      checkout: (index + 1) * WINDOW,
      paid_share: share,
    })),
  );
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: `Paid share per ${WINDOW} checkouts: A falls from 0.85 to 0.55 after checkout ${Math.round(CHECKOUTS / 3)}`,
    width: 640,
    height: 300,
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
  };
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  // The SVG's fonts are named, not embedded: "sans-serif" renders anywhere.
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}
