import {
  type AuditChannel,
  type AuditEntry,
  type AuditedAction,
  type AuditOutcome,
  type AuditSubject,
  type ConsoleRole,
  NO_ACCOUNT,
} from '../domain/console-access.ts';
import { ServiceError } from '../domain/errors.ts';
import type { Mode } from '../domain/principal.ts';
import { randomBase62 } from '../domain/random.ts';
import { logger } from '../logger.ts';
import type { ConsoleStore } from '../ports/console-store.ts';

export interface AuditDependencies {
  store: ConsoleStore;
  now: () => Date;
}

/**
 * Whom an entry names: a signed-in user, the grant of a sign-in, an API key or an operator (`via`, without a console
 * role), or nobody known (undefined).
 */
export type AuditActor =
  | { account: string; user: string; role: ConsoleRole | null; mode?: Mode; via?: AuditChannel }
  | undefined;

/** What was attempted, on what, from which client address. */
export interface Attempt {
  action: AuditedAction;
  target: string | null;
  sourceIp: string;
  /** What the target is beyond its id, when known before the change. */
  about?: AuditSubject;
}

/** What became of a change whose entry was written first. */
export interface Settlement {
  outcome: Exclude<AuditOutcome, 'attempted' | 'refused'>;
  /** What the change made (a new link's id), when the attempt could not name it. */
  target?: string | null;
  reason?: string | null;
  /** What the target is beyond its id (a refund's amount and payment), once the change made it. */
  about?: AuditSubject;
}

/** An entry written before its change, waiting for the change's outcome. */
export interface PendingChange {
  readonly entry: AuditEntry;
  /**
   * Records the outcome, once. A failure to record it is logged, not thrown: the change is made (or not) by then,
   * and its entry stays `attempted`, which says the outcome is unknown.
   */
  settle(settlement: Settlement): Promise<void>;
}

function entryOf(
  deps: AuditDependencies,
  actor: AuditActor,
  attempt: Attempt,
  outcome: AuditOutcome,
  reason: string | null,
): AuditEntry {
  return {
    id: randomBase62(12),
    account: actor?.account ?? NO_ACCOUNT,
    mode: actor?.mode ?? null,
    user: actor?.user ?? null,
    role: actor?.role ?? null,
    action: attempt.action,
    target: attempt.target,
    ...(attempt.about && { about: attempt.about }),
    ...(actor?.via && { via: actor.via }),
    outcome,
    reason,
    source_ip: attempt.sourceIp,
    at: deps.now().toISOString(),
  };
}

/** Records an attempt refused before anything ran, and why (`csrf`, `role`, `cross-site`, `link-unknown`, ...). */
export async function recordRefusal(
  deps: AuditDependencies,
  actor: AuditActor,
  attempt: Attempt,
  reason: string,
): Promise<void> {
  await deps.store.recordAudit(entryOf(deps, actor, attempt, 'refused', reason));
}

/**
 * Writes the entry of a change before the change is made (`attempted`). Whoever makes the change then settles it
 * with the outcome. If this write fails it throws, and the change must not be made: no change goes unrecorded.
 */
export async function beginChange(
  deps: AuditDependencies,
  actor: AuditActor,
  attempt: Attempt,
): Promise<PendingChange> {
  const entry = entryOf(deps, actor, attempt, 'attempted', null);
  await deps.store.recordAudit(entry);
  return {
    entry,
    settle: async ({ outcome, target = entry.target, reason = null, about = entry.about }) => {
      try {
        await deps.store.settleAudit({ ...entry, outcome, target, reason, ...(about && { about }) });
      } catch (error) {
        logger.error('audit outcome not recorded', { action: entry.action, outcome, error });
      }
    },
  };
}

/** The reason recorded for a change that threw: the error's code, or `internal_error`. */
export const failureOf = (error: unknown): string =>
  error instanceof ServiceError ? error.code : 'internal_error';

/**
 * Makes a change with its entry written first (`beginChange`) and settled with the change's outcome: `failed`
 * with `failureOf` when it throws (the error is thrown on), else `outcomeOf` its result.
 */
export async function auditedChange<T>(
  deps: AuditDependencies,
  actor: AuditActor,
  attempt: Attempt,
  change: () => Promise<T>,
  outcomeOf: (result: T) => Settlement = () => ({ outcome: 'succeeded' }),
): Promise<T> {
  const pending = await beginChange(deps, actor, attempt);
  let result: T;
  try {
    result = await change();
  } catch (error) {
    await pending.settle({ outcome: 'failed', reason: failureOf(error) });
    throw error;
  }
  await pending.settle(outcomeOf(result));
  return result;
}
