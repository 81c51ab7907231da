import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantOf, isTimeZone, startOfDay, timeZoneNamed } from '../../functions/domain/time-zones.ts';

/** The calendar date of an instant in a zone, as the platform's Intl says it. */
const dateIn = (instant: number, timeZone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    instant,
  );

describe("a date of the account's time zone", () => {
  it.each([
    ['2026-11-29', 'UTC', '2026-11-29T00:00:00.000Z'],
    ['2026-11-29', 'Europe/Amsterdam', '2026-11-28T23:00:00.000Z'],
    // Summer time: UTC+2; the day the clocks go forward (at 02:00) still starts at midnight, UTC+1.
    ['2026-07-01', 'Europe/Amsterdam', '2026-06-30T22:00:00.000Z'],
    ['2026-03-29', 'Europe/Amsterdam', '2026-03-28T23:00:00.000Z'],
    ['2026-10-25', 'Europe/Amsterdam', '2026-10-24T22:00:00.000Z'],
    ['2026-11-29', 'Asia/Kolkata', '2026-11-28T18:30:00.000Z'],
    ['2026-11-29', 'America/Los_Angeles', '2026-11-29T08:00:00.000Z'],
    // Santiago's clocks skip from 00:00 to 01:00 (UTC-4 to UTC-3): the day starts at 01:00, 04:00 UTC.
    ['2024-09-08', 'America/Santiago', '2024-09-08T04:00:00.000Z'],
    // ... and go back from 00:00 to 23:00 the day before: its midnight comes once, at UTC-4.
    ['2024-04-07', 'America/Santiago', '2024-04-07T04:00:00.000Z'],
    // Samoa skipped 2011-12-30 whole: it "starts" where 2011-12-31 does.
    ['2011-12-30', 'Pacific/Apia', '2011-12-30T10:00:00.000Z'],
  ])('%s in %s starts at %s', (date, zone, start) => {
    expect(startOfDay(date, zone)).toBe(start);
  });

  it('starts at the first instant that the zone calls that date, in any zone the platform knows', () => {
    const zones = Intl.supportedValuesOf('timeZone');
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.date({ min: new Date('1990-01-01'), max: new Date('2040-12-31'), noInvalidDate: true }),
        (zone, day) => {
          const date = day.toISOString().slice(0, 10);
          const start = Date.parse(startOfDay(date, zone));
          expect(dateIn(start, zone) >= date).toBe(true);
          expect(dateIn(start - 1, zone) < date).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves an RFC 3339 time as the instant it names, written as stored times are', () => {
    expect(instantOf('2026-11-29T10:00:00+01:00', 'Asia/Tokyo')).toBe('2026-11-29T09:00:00.000Z');
    expect(instantOf('2026-11-29', 'Asia/Tokyo')).toBe('2026-11-28T15:00:00.000Z');
  });

  it("is named by a name of the platform's list, or one the platform takes for one of them, or UTC", () => {
    expect(timeZoneNamed('UTC')).toBe('UTC');
    expect(timeZoneNamed('Europe/Amsterdam')).toBe('Europe/Amsterdam');
    // Aliases, and names in another case, read as the zone of the list they name.
    expect(timeZoneNamed('europe/amsterdam')).toBe('Europe/Amsterdam');
    expect(Intl.supportedValuesOf('timeZone')).toContain(timeZoneNamed('Asia/Kolkata'));
    expect(timeZoneNamed('Etc/UTC')).toBe('UTC');
    for (const name of ['Mars/Olympus_Mons', '', '+01:00', 'CET ', 'Europe/']) {
      expect(timeZoneNamed(name)).toBeUndefined();
      expect(isTimeZone(name)).toBe(false);
    }
  });
});
