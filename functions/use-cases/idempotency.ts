import { randomUUID } from 'node:crypto';
import { IdempotencyInProgressError, IdempotencyKeyReusedError } from '../domain/errors.ts';
import { logger } from '../logger.ts';
import type {
  IdempotencyRecord,
  IdempotencyScope,
  IdempotencyStore,
  StoredResponse,
} from '../ports/idempotency-store.ts';

/** Keys of 1 to 255 characters, kept 24 hours (docs/api.md#idempotency). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;
/** How long a request holds its key before a retry may presume it dead (well above the function timeout). */
export const IDEMPOTENCY_LOCK_SECONDS = 60;

export interface IdempotencyDependencies {
  store: IdempotencyStore;
  now: () => Date;
  /**
   * The fingerprint of the create that made a link with this key within its 24 hours: such a key is held by the
   * link itself (functions/use-cases/keyed-creates.ts), not by the store, and is refused to any other request.
   */
  linkRequestOf?: (scope: IdempotencyScope) => Promise<string | undefined>;
}

const CLAIM_ATTEMPTS = 3;

/**
 * Runs `execute` at most once per (account, mode, key) within 24 hours and replays its response to retries:
 * - the same key with the same fingerprint, completed: the stored response, `replayed: true`;
 * - the same key with another fingerprint: `idempotency_key_reused` (422);
 * - the same key while the first request still runs: `idempotency_in_progress` (409).
 * `execute` says whether its response is kept for replay; one that is not (a 5xx, a validation failure) frees
 * the key so that a retry runs anew.
 *
 * Why not Powertools Idempotency: its key comes from the event alone (JMESPath), not from the authenticated
 * (account, mode); it deletes the record whenever the handler throws, so 4xx problems could not be replayed;
 * and replays carry no marker for `Idempotent-Replayed`. This store is the small part of it we need.
 */
export async function runIdempotently(
  deps: IdempotencyDependencies,
  scope: IdempotencyScope,
  fingerprint: string,
  execute: () => Promise<{ response: StoredResponse; keep: boolean }>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const token = randomUUID();
  const [replay, linkRequest] = await Promise.all([
    claimKey(deps, scope, fingerprint, token),
    deps.linkRequestOf?.(scope),
  ]);
  if (linkRequest !== undefined && linkRequest !== fingerprint) {
    if (!replay) await deps.store.release(scope, token);
    throw new IdempotencyKeyReusedError();
  }
  if (replay) return { response: replay, replayed: true };
  const { response, keep } = await execute();
  try {
    if (keep) await deps.store.complete(scope, token, response);
    else await deps.store.release(scope, token);
  } catch (error) {
    // The work is done: answer it. The key stays in progress until its lock lapses.
    logger.error('Idempotency record not updated', { error });
  }
  return { response, replayed: false };
}

/** Claims the key for the request holding `token`; the response to replay when a completed request holds it. */
async function claimKey(
  deps: IdempotencyDependencies,
  scope: IdempotencyScope,
  fingerprint: string,
  token: string,
): Promise<StoredResponse | undefined> {
  for (let attempt = 1; ; attempt++) {
    const now = deps.now();
    const claim = await deps.store.claim(
      scope,
      {
        fingerprint,
        status: 'in_progress',
        token,
        lock_until: new Date(now.getTime() + IDEMPOTENCY_LOCK_SECONDS * 1000).toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000).toISOString(),
      },
      now,
    );
    if (claim.claimed) return undefined;
    if (claim.existing) return replayOf(claim.existing, fingerprint);
    // Released between our write and our read: retry the claim, then give up.
    if (attempt >= CLAIM_ATTEMPTS) throw new IdempotencyInProgressError();
  }
}

/** The stored response of a key another request holds: only one that completed with the same fingerprint. */
function replayOf(existing: IdempotencyRecord, fingerprint: string): StoredResponse {
  if (existing.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  if (existing.status === 'completed' && existing.response) return existing.response;
  throw new IdempotencyInProgressError();
}
