import { describe, expect, it } from 'vitest';
import { routingUplift } from '../../functions/domain/uplift.ts';
import { upliftChart } from '../../functions/http/console/charts.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';

const arm = (rule: string, arm: 'learning' | 'holdout', paid: number, decided: number) => ({
  account: 'acme',
  mode: 'live',
  day: '2026-11-29',
  rule,
  goal: 'conversion' as const,
  arm,
  segment: 'EUR|any|10-100',
  counts: { opened: decided, paid, failed: decided - paid, left: 0, amount: paid * 40, net: 0, net_sq: 0 },
});

describe("the overview's uplift chart", () => {
  it('draws each rule whole, as a dot on its interval, with text of 12 px at least, as one labelled image', async () => {
    const uplift = routingUplift(
      [arm('euro cards', 'learning', 800, 1000), arm('euro cards', 'holdout', 38, 52)],
      '7d',
      new Date('2026-11-29T12:00:00.000Z'),
    );
    const words = (await loadConsoleMessages('en')).overview;
    const rows = uplift.rules.map((rule) => ({ label: `${rule.rule} (${rule.goal})`, figures: rule }));

    const chart = await upliftChart(rows, words, {
      title: words.upliftTitle(7),
      description: 'What it shows.',
    });

    expect(chart.svg).toMatch(/^<svg role="img" aria-labelledby="chart-uplift-title"/);
    expect(chart.svg).toContain('>euro cards (conversion)</text>');
    expect(chart.svg).toContain('>Difference in paid share (points, 95% interval)</text>');
    const sizes = [...chart.svg.matchAll(/font-size="(\d+(?:\.\d+)?)px"/g)].map((match) => Number(match[1]));
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
  });
});
