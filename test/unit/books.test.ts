import { describe, expect, it } from 'vitest';
import { exportPeriodProblem, neutralisedCell, passes } from '../../functions/domain/books.ts';

describe('CSV cells', () => {
  it.each(['=1+1', '+31 6', '-2', '@SUM(A1)', '\tx', '\rx'])('prefix %j with a quote', (cell) => {
    expect(neutralisedCell(cell)).toBe(`'${cell}`);
  });

  it.each(['10.50', 'Ada', '', 'pay_x', "'=already"])('keep %j as it is', (cell) => {
    expect(neutralisedCell(cell)).toBe(cell);
  });
});

describe('the period of a CSV export', () => {
  const at = (day: number) => new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString();

  it('needs both bounds, in order, at most 31 days apart', () => {
    expect(exportPeriodProblem({ createdLt: at(1) })?.pointer).toBe('/created[gte]');
    expect(exportPeriodProblem({ createdGte: at(0) })?.pointer).toBe('/created[lt]');
    expect(exportPeriodProblem({ createdGte: at(2), createdLt: at(1) })?.pointer).toBe('/created[lt]');
    expect(exportPeriodProblem({ createdGte: at(0), createdLt: at(31) })).toBeUndefined();
    expect(exportPeriodProblem({ createdGte: at(0), createdLt: at(31.001) })?.pointer).toBe('/created[lt]');
  });
});

describe('the filters', () => {
  const entry = { created_at: '2026-01-02T00:00:00.000Z', status: 'succeeded', connection_id: 'pc_a' };

  it('take the period as [gte, lt) and every other filter as equality, all at once', () => {
    expect(
      passes(entry, 'pl_a', { createdGte: entry.created_at, createdLt: '2026-01-03T00:00:00.000Z' }),
    ).toBe(true);
    expect(passes(entry, 'pl_a', { createdLt: entry.created_at })).toBe(false);
    expect(passes(entry, 'pl_a', { status: 'succeeded', connectionId: 'pc_a', linkId: 'pl_a' })).toBe(true);
    expect(passes(entry, 'pl_a', { status: 'succeeded', connectionId: 'pc_b' })).toBe(false);
    expect(passes(entry, 'pl_a', { clientReferenceId: 'x' })).toBe(false);
  });
});
