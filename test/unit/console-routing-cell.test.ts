import { beforeAll, describe, expect, it } from 'vitest';
import type { RoutingDecision } from '../../functions/domain/routing-decision.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import { routingCell } from '../../functions/http/console/routing-cell.ts';

// The cell takes the words of a language its page has loaded.
beforeAll(() => Promise.all([loadConsoleMessages('en'), loadConsoleMessages('de')]));

const decision: RoutingDecision = {
  rule: 'euro cards',
  strategy: 'conversion',
  segment: { currency: 'EUR', payment_method: 'any', amount_band: '10-100' },
  candidates: [
    {
      connection: 'pc_a',
      paid_share: 0.81,
      sessions: 412,
      expected_fee: 0.95,
      fee_basis: 'configured',
      eliminated: false,
    },
    {
      connection: 'pc_b',
      paid_share: 0.345,
      sessions: 120,
      expected_fee: null,
      fee_basis: null,
      eliminated: true,
    },
    {
      connection: 'pc_c',
      paid_share: null,
      sessions: 0,
      expected_fee: 1.2,
      fee_basis: 'configured',
      eliminated: false,
    },
  ],
  chosen: 'pc_a',
  exploration: false,
  recovery: true,
  holdout: false,
};

const text = (cell: ReturnType<typeof routingCell>) =>
  (typeof cell === 'string' ? cell : cell.value)
    .replace(/<[^>]+>/g, '\n')
    .replace(/\s/g, (space) => (space === '\n' ? space : ' '))
    .trim();

describe("a payment's routing decision on its link's page", () => {
  it('names the strategy, the rule and a recovery, then what it knew of each candidate', () => {
    const lines = text(routingCell(decision, 'en')).split(/\n+/);

    expect(lines).toEqual([
      'conversion, rule euro cards, recovery',
      '3 candidates',
      'pc_a, 81% paid of 412 sessions, expected fee €0.95, chosen',
      'pc_b, 34.5% paid of 120 sessions, eliminated',
      'pc_c, no sessions yet, expected fee €1.20',
    ]);
  });

  it('says when the checkout was held out, in each language', () => {
    const held = { ...decision, recovery: false, holdout: true };

    expect(text(routingCell(held, 'en')).split(/\n+/)[0]).toBe('conversion, rule euro cards, holdout');
    expect(text(routingCell(held, 'de')).split(/\n+/)[0]).toBe(
      'conversion, Regel euro cards, Kontrollgruppe',
    );
  });

  it("writes shares and fees as the page's language does", () => {
    expect(text(routingCell(decision, 'de'))).toContain(
      'pc_a, 81 % bezahlt von 412 Sitzungen, erwartete Gebühr 0,95 €, gewählt',
    );
  });

  it('is a dash for a payment that never opened a session, and the strategy alone without candidates', () => {
    expect(routingCell(null, 'en')).toBe('–');
    expect(routingCell({ ...decision, candidates: [], rule: null, recovery: false }, 'en')).toBe(
      'conversion',
    );
  });
});
