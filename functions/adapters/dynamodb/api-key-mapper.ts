import type { ApiKeyRecord } from '../../domain/api-key.ts';
import { itemDecoder, mode, nullable, oneOf, string } from './item-decoder.ts';

/** An API key's record (its hash, never the key): every field stored since the first keys (2026-11-22). */
export const apiKeyFromItem = /* @__PURE__ */ itemDecoder<ApiKeyRecord>('API key', () => ({
  key_id: string,
  account: string,
  mode,
  hash: string,
  display_prefix: string,
  status: oneOf(['active', 'revoked']),
  created_at: string,
  revoked_at: nullable(string),
}));
