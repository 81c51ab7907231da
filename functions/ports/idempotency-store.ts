import type { Mode } from '../domain/principal.ts';

/** The response of the first request with a key, as replayed to its retries. */
export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** Idempotency keys are scoped by (account, mode): two tenants may use the same key independently. */
export interface IdempotencyScope {
  account: string;
  mode: Mode;
  key: string;
}

export interface IdempotencyRecord {
  /** Hash of what makes two requests "the same": method, path and canonical JSON body. */
  fingerprint: string;
  status: 'in_progress' | 'completed';
  /** Identifies the request that holds the key, so only it may complete or release it. */
  token: string;
  /** While `in_progress`, after this instant the holder is presumed dead and a retry may take over. */
  lock_until: string;
  /** After this instant the key is free again (the TTL deletes the item eventually; reads never trust that). */
  expires_at: string;
  response?: StoredResponse;
}

/** Storage of idempotency keys with the conditional writes that make one request win a key. */
export interface IdempotencyStore {
  /**
   * Stores `record` unless a live record holds the key: one that has not expired and is either completed, or
   * in progress with its lock still valid or a different fingerprint. Returns that record when it does.
   */
  claim(
    scope: IdempotencyScope,
    record: IdempotencyRecord,
    now: Date,
  ): Promise<{ claimed: true } | { claimed: false; existing: IdempotencyRecord | undefined }>;
  /** Records the response of the request holding `token`. */
  complete(scope: IdempotencyScope, token: string, response: StoredResponse): Promise<void>;
  /** Frees the key held by `token`, so a retry runs anew (after a 5xx or a validation failure). */
  release(scope: IdempotencyScope, token: string): Promise<void>;
}
