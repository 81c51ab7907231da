import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportPeriodProblem, neutralisedCell, passes } from '../../functions/domain/books.ts';
import { startOfDay } from '../../functions/domain/time-zones.ts';

describe('CSV cells', () => {
  it.each([
    ...['=1+1', '+31 6', '-2', '@SUM(A1)', '\tx', '\rx'],
    // The fullwidth forms, which spreadsheets read as the same formula starts.
    ...['\uFF1D1+1', '\uFF0B31', '\uFF0D2', '\uFF20SUM(A1)'],
    // The small forms, which Unicode folds into the same characters (NFKC).
    ...['\uFE661+1', '\uFE6231', '\uFE632', '\uFE6BSUM(A1)'],
    // Whitespace a spreadsheet may skip before one of them.
    ...[' =1+1', '  +31', '\n-2', '\u00A0@SUM(A1)', '\u3000\uFF1D1+1', '\uFEFF=1+1', '\u200B=1+1', '\t=1'],
  ])('prefix %j with a quote', (cell) => {
    expect(neutralisedCell(cell)).toBe(`'${cell}`);
  });

  it.each(['10.50', 'Ada', '', '   ', 'pay_x', "'=already", ' Ada', 'a=b', '\u2212minus'])(
    'keep %j as it is',
    (cell) => {
      expect(neutralisedCell(cell)).toBe(cell);
    },
  );

  it('prefix any cell whose first character past whitespace is a formula start in any form, and no other', () => {
    const starts = [
      '=',
      '+',
      '-',
      '@',
      '\uFF1D',
      '\uFF0B',
      '\uFF0D',
      '\uFF20',
      '\uFE66',
      '\uFE62',
      '\uFE63',
      '\uFE6B',
    ];
    const whitespace = fc.string({
      unit: fc.constantFrom(' ', '\n', '\u00A0', '\u2003', '\u3000', '\uFEFF', '\u200B'),
    });
    fc.assert(
      fc.property(whitespace, fc.constantFrom(...starts), fc.string(), (space, start, rest) => {
        const cell = `${space}${start}${rest}`;
        expect(neutralisedCell(cell)).toBe(`'${cell}`);
      }),
    );
    // Anything else starting with a letter, digit or quote after whitespace is left alone.
    const safe = fc.string({
      unit: fc.constantFrom('a', 'Z', '0', '9', "'", '\u00E9', '\u4E2D'),
      minLength: 1,
    });
    fc.assert(
      fc.property(whitespace, safe, fc.string(), (space, start, rest) => {
        const cell = `${space}${start}${rest}`;
        expect(neutralisedCell(cell)).toBe(cell);
      }),
    );
  });
});

describe('the period of a CSV export', () => {
  const at = (day: number) => new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString();

  const hours = (n: number) => n / 24;

  it('needs both bounds, in order, at most 31 days apart (and the 2 hours a change of clocks may add)', () => {
    expect(exportPeriodProblem({ createdLt: at(1) })?.pointer).toBe('/created[gte]');
    expect(exportPeriodProblem({ createdGte: at(0) })?.pointer).toBe('/created[lt]');
    expect(exportPeriodProblem({ createdGte: at(2), createdLt: at(1) })?.pointer).toBe('/created[lt]');
    expect(exportPeriodProblem({ createdGte: at(0), createdLt: at(31) })).toBeUndefined();
    expect(exportPeriodProblem({ createdGte: at(0), createdLt: at(31 + hours(2)) })).toBeUndefined();
    expect(exportPeriodProblem({ createdGte: at(0), createdLt: at(31 + hours(2.01)) })?.pointer).toBe(
      '/created[lt]',
    );
  });

  it('takes October in Europe/Amsterdam, a month of 31 days and an hour, whose clocks go back', () => {
    expect(
      exportPeriodProblem({
        createdGte: startOfDay('2026-10-01', 'Europe/Amsterdam'),
        createdLt: startOfDay('2026-11-01', 'Europe/Amsterdam'),
      }),
    ).toBeUndefined();
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
