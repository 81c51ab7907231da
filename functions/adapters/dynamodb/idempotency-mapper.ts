import type { IdempotencyRecord, StoredResponse } from '../../ports/idempotency-store.ts';
import { itemDecoder, number, objectOf, oneOf, optional, recordOf, string } from './item-decoder.ts';

/** Who holds an idempotency key and, once completed, its response: every field stored since 2026-11-22. */
export const idempotencyRecordFromItem = /* @__PURE__ */ itemDecoder<IdempotencyRecord>(
  'idempotency record',
  () => ({
    fingerprint: string,
    status: oneOf(['in_progress', 'completed']),
    token: string,
    lock_until: string,
    expires_at: string,
    response: optional(
      objectOf<StoredResponse>({ statusCode: number, headers: recordOf(string), body: string }),
    ),
  }),
);
