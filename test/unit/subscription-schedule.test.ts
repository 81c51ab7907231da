import { describe, expect, it } from 'vitest';
import {
  addMonths,
  givesUpAt,
  periodBounds,
  periodStart,
  retryAt,
} from '../../functions/domain/subscription-schedule.ts';

/**
 * A subscription's periods and retry days (functions/domain/subscription-schedule.ts, docs/subscriptions.md#periods):
 * counted from the anchor, a month keeps the anchor's day clamped to the month's last day and its time of day.
 */

const MONTHLY = { interval: 'month', interval_count: 1 } as const;
const startsOf = (anchor: string, recurring: Parameters<typeof periodStart>[1], periods: number[]) =>
  periods.map((period) => periodStart({ anchor, anchor_period: 1 }, recurring, period).toISOString());

describe('a monthly subscription', () => {
  it('anchored on the 31st renews on each month’s last day when the month is short, and on the 31st again after', () => {
    expect(startsOf('2027-01-31T10:30:00.000Z', MONTHLY, [1, 2, 3, 4, 5, 6, 7, 8])).toEqual([
      '2027-01-31T10:30:00.000Z',
      '2027-02-28T10:30:00.000Z',
      '2027-03-31T10:30:00.000Z',
      '2027-04-30T10:30:00.000Z',
      '2027-05-31T10:30:00.000Z',
      '2027-06-30T10:30:00.000Z',
      '2027-07-31T10:30:00.000Z',
      '2027-08-31T10:30:00.000Z',
    ]);
  });

  it('anchored on 31 January renews on 29 February in a leap year; anchored on the 30th, on 28 February then 30 March', () => {
    expect(startsOf('2028-01-31T23:59:59.000Z', MONTHLY, [2, 3])).toEqual([
      '2028-02-29T23:59:59.000Z',
      '2028-03-31T23:59:59.000Z',
    ]);
    expect(startsOf('2027-01-30T00:00:00.000Z', MONTHLY, [2, 3])).toEqual([
      '2027-02-28T00:00:00.000Z',
      '2027-03-30T00:00:00.000Z',
    ]);
  });

  it('runs each period to the next one’s start, so a clamped February is a short period and March a long one', () => {
    const schedule = { anchor: '2027-01-31T08:00:00.000Z', anchor_period: 1 };
    const february = periodBounds(schedule, MONTHLY, 2);
    const march = periodBounds(schedule, MONTHLY, 3);

    expect(february).toEqual({
      start: new Date('2027-02-28T08:00:00.000Z'),
      end: new Date('2027-03-31T08:00:00.000Z'),
    });
    expect(march.start).toEqual(february.end);
    expect(march.end).toEqual(new Date('2027-04-30T08:00:00.000Z'));
  });

  it('counts from the period a recovery restarted it at, not from period 1', () => {
    const schedule = { anchor: '2027-05-31T12:00:00.000Z', anchor_period: 4 };

    expect(periodStart(schedule, MONTHLY, 4).toISOString()).toBe('2027-05-31T12:00:00.000Z');
    expect(periodStart(schedule, MONTHLY, 5).toISOString()).toBe('2027-06-30T12:00:00.000Z');
    expect(periodStart(schedule, MONTHLY, 6).toISOString()).toBe('2027-07-31T12:00:00.000Z');
  });
});

describe('other intervals', () => {
  it('every 3 months from 31 August: 30 November, the end of February, 31 May', () => {
    const quarterly = { interval: 'month', interval_count: 3 } as const;
    expect(startsOf('2027-08-31T06:00:00.000Z', quarterly, [2, 3, 4])).toEqual([
      '2027-11-30T06:00:00.000Z',
      '2028-02-29T06:00:00.000Z',
      '2028-05-31T06:00:00.000Z',
    ]);
  });

  it('yearly from 29 February: 28 February in common years, 29 February in the next leap year', () => {
    const yearly = { interval: 'year', interval_count: 1 } as const;
    expect(startsOf('2028-02-29T09:00:00.000Z', yearly, [2, 5])).toEqual([
      '2029-02-28T09:00:00.000Z',
      '2032-02-29T09:00:00.000Z',
    ]);
  });

  it('days and weeks are whole 24-hour days from the anchor', () => {
    expect(startsOf('2027-03-27T01:30:00.000Z', { interval: 'day', interval_count: 2 }, [2, 3])).toEqual([
      '2027-03-29T01:30:00.000Z',
      '2027-03-31T01:30:00.000Z',
    ]);
    expect(startsOf('2027-12-29T00:00:00.000Z', { interval: 'week', interval_count: 1 }, [2])).toEqual([
      '2028-01-05T00:00:00.000Z',
    ]);
  });

  it('moves back by months too, clamped the same way', () => {
    expect(addMonths(new Date('2027-03-31T10:00:00.000Z'), -1).toISOString()).toBe(
      '2027-02-28T10:00:00.000Z',
    );
  });
});

describe('retry days', () => {
  it('fall on the account’s days after the first failed charge, and end on the last of them', () => {
    const failed = new Date('2027-01-31T10:00:00.000Z');
    const days = [1, 3, 5, 7];

    expect(retryAt(days, failed, 1)?.toISOString()).toBe('2027-02-01T10:00:00.000Z');
    expect(retryAt(days, failed, 4)?.toISOString()).toBe('2027-02-07T10:00:00.000Z');
    expect(retryAt(days, failed, 5)).toBeUndefined();
    expect(givesUpAt(days, failed).toISOString()).toBe('2027-02-07T10:00:00.000Z');
    expect(givesUpAt([], failed)).toEqual(failed);
  });
});
