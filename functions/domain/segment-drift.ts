import { countsWithout, decided, type OutcomeCounts, type OutcomeWindows } from './outcomes.ts';

/**
 * A connection's change seen in its other segments before the link's own segment sees it
 * (docs/orchestration.md#strategies): a segment whose outcomes are known late (a bank transfer, an hour after its
 * session opened) still shows a connection's old paid share for that long after the connection changed, while a
 * segment of cards, known within minutes, already shows the change. Pure.
 */

/** How many standard errors a change must exceed before it counts: noise in a thin window is no change. */
export const DRIFT_SIGNIFICANCE = 2;

/** A window's decided sessions and paid share, as learning weighs them. */
interface Share {
  sessions: number;
  share: number;
}

const shareOf = (counts: OutcomeCounts): Share | undefined => {
  const sessions = decided(counts);
  return sessions > 0 ? { sessions, share: counts.paid / sessions } : undefined;
};

const weighedOf = (windows: OutcomeWindows) => windows.weighted ?? windows;

/** The variance of a measured share; one of 0 or 1 has none of its own: one session more is the least it is off by. */
const varianceOf = (share: Share) =>
  Math.max(share.share * (1 - share.share), 1 / share.sessions) / share.sessions;

/** One segment's last hour against the rest of its day: the change in paid share, and its variance. */
function changeOf(windows: OutcomeWindows): { change: number; variance: number } | undefined {
  const weighed = weighedOf(windows);
  const hour = shareOf(weighed.last_hour);
  const older = shareOf(countsWithout(weighed.last_24h, weighed.last_hour));
  if (!hour || !older) return undefined;
  return { change: hour.share - older.share, variance: varianceOf(hour) + varianceOf(older) };
}

/**
 * Whether two windows' paid shares differ beyond `DRIFT_SIGNIFICANCE` standard errors; not when either has no
 * decided session, as nothing then tells a change.
 */
export function sharesDiffer(a: OutcomeCounts, b: OutcomeCounts): boolean {
  const first = shareOf(a);
  const second = shareOf(b);
  if (!first || !second) return false;
  const margin = DRIFT_SIGNIFICANCE * Math.sqrt(varianceOf(first) + varianceOf(second));
  return Math.abs(first.share - second.share) > margin;
}

/**
 * The change in paid share (in [-1, 1]) the connection's other segments show and the segment's own last hour does
 * not show yet: the other segments' changes (last hour against the rest of the day), pooled by their precision so
 * that a shift of traffic between segments is no change, and counted only beyond `DRIFT_SIGNIFICANCE` standard
 * errors; less the part of it the segment's own last hour already shows. 0 when the other segments show none, or
 * the segment moved as far on its own: a segment's own change is never undone, only one it cannot see yet added.
 */
export function unseenChange(own: OutcomeWindows | undefined, others: readonly OutcomeWindows[]): number {
  let precision = 0;
  let weighted = 0;
  for (const windows of others) {
    const change = changeOf(windows);
    if (!change) continue;
    precision += 1 / change.variance;
    weighted += change.change / change.variance;
  }
  if (precision === 0) return 0;
  const pooled = weighted / precision;
  const margin = DRIFT_SIGNIFICANCE / Math.sqrt(precision);
  const seen = Math.sign(pooled) * Math.max(0, Math.abs(pooled) - margin);
  if (seen === 0) return 0;
  const ownChange = own ? (changeOf(own)?.change ?? 0) : 0;
  const alreadySeen = Math.min(Math.max(ownChange, Math.min(0, seen)), Math.max(0, seen));
  return seen - alreadySeen;
}

/** `counts` with their paid share moved by `change` (kept in [0, 1]) and as many decided sessions. */
export function shiftedShare(counts: OutcomeCounts, change: number): OutcomeCounts {
  const sessions = decided(counts);
  if (change === 0 || sessions === 0) return counts;
  const share = Math.min(1, Math.max(0, counts.paid / sessions + change));
  const unpaid = counts.failed + counts.left;
  const failedPart = unpaid > 0 ? counts.failed / unpaid : 1;
  return {
    ...counts,
    paid: share * sessions,
    failed: (1 - share) * sessions * failedPart,
    left: (1 - share) * sessions * (1 - failedPart),
  };
}
