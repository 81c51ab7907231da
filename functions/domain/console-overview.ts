import { fromMinorUnits, toMinorUnits } from './money.ts';

/**
 * The console's overview (docs/console.md#overview): the mode's payments per day over a window, and what share
 * of them was paid. Pure: the figures from the payments the books list, with `now` given.
 */
export const OVERVIEW_WINDOWS = [14, 30] as const;
export type OverviewWindow = (typeof OVERVIEW_WINDOWS)[number];

/** The most payments the overview reads (10 pages of the books): past it, the oldest days are incomplete. */
export const OVERVIEW_MAX_PAYMENTS = 1_000;

export interface OverviewPayment {
  status: string;
  created_at: string;
  amount: { value: string; currency: string };
}

/** One day (UTC) of the window. */
export interface DayFigures {
  /** `YYYY-MM-DD`. */
  day: string;
  /** Payments started that day, whatever became of them. */
  payments: number;
  /** Of those, the ones that succeeded. */
  paid: number;
  /** Paid, by currency, as decimal strings (`{ EUR: "120.50" }`). */
  amountPaid: Record<string, string>;
  /** `paid / payments`, or null on a day without payments. */
  conversion: number | null;
}

const DAY_MS = 86_400_000;
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);

/** The first instant of the window: midnight UTC `days - 1` days before today, so that today is its last day. */
export function windowStart(now: Date, days: OverviewWindow): string {
  const today = Date.parse(`${dayOf(now.getTime())}T00:00:00.000Z`);
  return new Date(today - (days - 1) * DAY_MS).toISOString();
}

/** Every day of the window, oldest first, with the payments created in it counted. */
export function dailyFigures(
  payments: readonly OverviewPayment[],
  now: Date,
  days: OverviewWindow,
): DayFigures[] {
  const start = Date.parse(windowStart(now, days));
  const byDay = new Map<string, { payments: number; paid: number; minor: Map<string, bigint> }>();
  for (let index = 0; index < days; index++) {
    byDay.set(dayOf(start + index * DAY_MS), { payments: 0, paid: 0, minor: new Map() });
  }
  for (const payment of payments) {
    const day = byDay.get(payment.created_at.slice(0, 10));
    if (!day) continue;
    day.payments++;
    if (payment.status !== 'succeeded') continue;
    day.paid++;
    const { currency } = payment.amount;
    day.minor.set(currency, (day.minor.get(currency) ?? 0n) + toMinorUnits(payment.amount));
  }
  return [...byDay].map(([day, figures]) => ({
    day,
    payments: figures.payments,
    paid: figures.paid,
    amountPaid: Object.fromEntries(
      [...figures.minor].map(([currency, minor]) => [currency, fromMinorUnits(minor, currency)]),
    ),
    conversion: figures.payments ? figures.paid / figures.payments : null,
  }));
}
