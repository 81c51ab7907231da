/**
 * An account's time zone (docs/api.md#account-settings): the IANA names the platform's `Intl` knows, and where a
 * day of that zone starts. Pure: the zone rules are the runtime's ICU data, no clock is read.
 */

/** What an account that set none counts its days in. */
export const DEFAULT_TIME_ZONE = 'UTC';
/** The longest IANA name, `America/Argentina/ComodRivadavia`, has 32 characters. */
export const MAX_TIME_ZONE_LENGTH = 64;

/**
 * The time zone `name` names, as `Intl.supportedValuesOf('timeZone')` spells it (or `UTC`, which that list leaves
 * out): the name itself when the list holds it, or the zone of the list the platform takes it for (an alias such as
 * `Asia/Kolkata`, which this ICU lists as `Asia/Calcutta`; any case); undefined for anything else (an offset such
 * as `+01:00`, a zone the platform does not know).
 */
export function timeZoneNamed(name: string): string | undefined {
  const supported = Intl.supportedValuesOf('timeZone');
  if (name === DEFAULT_TIME_ZONE || supported.includes(name)) return name;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
  return resolved === DEFAULT_TIME_ZONE || supported.includes(resolved) ? resolved : undefined;
}

export const isTimeZone = (name: string): boolean => timeZoneNamed(name) !== undefined;

/** A calendar date as the API takes it in a bound (`created[gte]=2026-11-29`). */
export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

const DAY_MS = 86_400_000;

/** The calendar date (`YYYY-MM-DD`) of `instant` in `timeZone`. */
export function dateIn(instant: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value;
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** How far `timeZone`'s clocks are ahead of UTC at `instant`, in milliseconds (whole seconds). */
function offsetAt(instant: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  const local = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return local - Math.floor(instant / 1000) * 1000;
}

/**
 * The first instant of `date` in `timeZone`, as stored times are written (ISO 8601, UTC, milliseconds). Usually
 * its local midnight; where the clocks skip midnight (a change of clocks at 00:00, as in America/Santiago), the
 * first instant after the gap; a date the zone skipped whole (Pacific/Apia's 2011-12-30) starts where the next one
 * does. The offsets in force around the date give the candidates; the earliest that falls on the date or later
 * is its start.
 */
export function startOfDay(date: string, timeZone: string): string {
  const midnight = Date.parse(`${date}T00:00:00Z`);
  const offsets = new Set(
    [-DAY_MS, -DAY_MS / 2, 0, DAY_MS / 2, DAY_MS].map((shift) => offsetAt(midnight + shift, timeZone)),
  );
  const starts = [...offsets]
    .map((offset) => midnight - offset)
    .filter((instant) => dateIn(instant, timeZone) >= date)
    .sort((a, b) => a - b);
  return new Date(starts[0] ?? midnight).toISOString();
}

/**
 * A bound of a period as the books compare it (`created[gte]`, `created[lt]`): a date is the start of that day in
 * the account's time zone, an RFC 3339 time the instant it names; either as stored times are written.
 */
export const instantOf = (bound: string, timeZone: string): string =>
  DATE_PATTERN.test(bound) ? startOfDay(bound, timeZone) : new Date(bound).toISOString();

/** The periods the console offers in one click, each a pair of calendar dates, both included. */
export const DATE_PRESETS = ['today', 'yesterday', 'last7', 'last30', 'thisMonth'] as const;
export type DatePreset = (typeof DATE_PRESETS)[number];

/** `date` moved by `days` calendar days. */
const shifted = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Each preset's first and last day in `timeZone` at `now`: days of the account's time zone, as the books' date
 * bounds are read (`instantOf`), so that "today" is the merchant's today wherever the server runs.
 */
export function presetPeriods(now: Date, timeZone: string): Record<DatePreset, { from: string; to: string }> {
  const today = dateIn(now.getTime(), timeZone);
  const yesterday = shifted(today, -1);
  return {
    today: { from: today, to: today },
    yesterday: { from: yesterday, to: yesterday },
    last7: { from: shifted(today, -6), to: today },
    last30: { from: shifted(today, -29), to: today },
    thisMonth: { from: `${today.slice(0, 8)}01`, to: today },
  };
}
