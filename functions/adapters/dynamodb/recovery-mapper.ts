import type { Recovery } from '../../ports/endpoint-recoveries.ts';
import { itemDecoder, mode, number, oneOf, optional, string } from './item-decoder.ts';

/**
 * An endpoint's recovery: every field stored since recoveries exist (2026-11-25). The item's `id`, `kind` and
 * `delivery_seq` are its place in the outbox (endpoint-recovery-store.ts), not the recovery's.
 */
export const recoveryFromItem = /* @__PURE__ */ itemDecoder<Recovery>(
  'endpoint recovery',
  () => ({
    endpoint_id: string,
    account: string,
    mode,
    since: string,
    status: oneOf(['running', 'done']),
    step: number,
    cursor: optional(string),
    queued: number,
    started_at: string,
    finished_at: optional(string),
  }),
  { omit: ['id', 'kind', 'delivery_seq'] },
);
