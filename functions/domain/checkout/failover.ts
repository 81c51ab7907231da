import { ANSWER_ROOM_MS, PSP_CALL_TIMEOUT_MS } from '../call-budgets.ts';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../connection.ts';
import { awaitsTrial, type ConnectionHealth, INITIAL_HEALTH, isAvailable } from '../connection-health.ts';
import type { RoutingDecision, TriedAttempt } from '../routing-decision.ts';

/**
 * The rules of an opening's failover (docs/orchestration.md#failover, #health): the plan orders the candidates
 * (functions/domain/checkout/plan.ts); an opening goes through them in that order, one PSP call each, and these
 * rules say what it does with the next one and what a failure there counts for.
 */

/**
 * What an opening does with its next candidate: `stop` once the request has no PSP call left; `try` a connection
 * that is available; `claim_trial` first for one whose down time is over (one instance gets its single trial,
 * `claimTrial`); else `skip` it, as it is down.
 */
export function nextAttempt(
  callsLeft: number,
  health: ConnectionHealth | undefined,
  now: Date,
): 'stop' | 'try' | 'claim_trial' | 'skip' {
  if (callsLeft < 1) return 'stop';
  const known = health ?? INITIAL_HEALTH;
  if (isAvailable(known, now)) return 'try';
  return awaitsTrial(known, now) ? 'claim_trial' : 'skip';
}

/** How long a claimed trial reads `down` to everybody else: one PSP call's bound and the room to answer. */
export const TRIAL_LEASE_MS = PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS;

/**
 * Whether a connection's failure to open a session counts against its health: only the PSP's own failures (no
 * answer, network errors, 5xx, 429, refused credentials). Its refusal of this link (an amount or currency it does
 * not take: `refused`) does not, as the next link may be fine; nor does anything of the built-in sandbox, which
 * is the service itself.
 */
export const countsAgainstHealth = (connection: PspConnection, refused: boolean): boolean =>
  connection.id !== BUILT_IN_SANDBOX_ID && !refused;

/**
 * The decision an attempt of an opening records (docs/orchestration.md#reading-a-decision): the plan's, at the
 * attempt's connection, naming the attempts of the opening before it, so that the failed attempts and the one
 * that opened each tell the whole decision.
 */
export const attemptDecision = (
  decision: RoutingDecision,
  connectionId: string,
  tried: readonly TriedAttempt[],
): RoutingDecision => ({
  ...decision,
  chosen: connectionId,
  ...(tried.length > 0 ? { tried: [...tried] } : {}),
});
