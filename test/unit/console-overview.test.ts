import { describe, expect, it } from 'vitest';
import { dailyFigures, windowStart } from '../../functions/domain/console-overview.ts';

const now = new Date('2026-11-28T09:30:00.000Z');
const payment = (created_at: string, status: string, value = '10.00', currency = 'EUR') => ({
  created_at,
  status,
  amount: { value, currency },
});

describe('the console overview figures', () => {
  it('start the window at midnight UTC so that today is its last day', () => {
    expect(windowStart(now, 14)).toBe('2026-11-15T00:00:00.000Z');
    expect(windowStart(now, 30)).toBe('2026-10-30T00:00:00.000Z');
  });

  it('count each day, sum what was paid per currency exactly, and leave the conversion of an empty day open', () => {
    const days = dailyFigures(
      [
        payment('2026-11-28T08:00:00.000Z', 'succeeded', '0.10'),
        payment('2026-11-28T07:00:00.000Z', 'succeeded', '0.20'),
        payment('2026-11-28T06:00:00.000Z', 'succeeded', '1000', 'JPY'),
        payment('2026-11-28T05:00:00.000Z', 'failed', '99.00'),
        payment('2026-11-15T00:00:00.000Z', 'pending'),
        payment('2026-11-14T23:59:59.999Z', 'succeeded'),
      ],
      now,
      14,
    );

    expect(days).toHaveLength(14);
    expect(days[13]).toEqual({
      day: '2026-11-28',
      payments: 4,
      paid: 3,
      amountPaid: { EUR: '0.30', JPY: '1000' },
      conversion: 0.75,
    });
    expect(days[0]).toEqual({ day: '2026-11-15', payments: 1, paid: 0, amountPaid: {}, conversion: 0 });
    expect(days[1]).toMatchObject({ day: '2026-11-16', payments: 0, conversion: null });
  });
});
