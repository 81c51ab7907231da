import type { ApiKeyRecord } from '../domain/api-key.ts';

/** API keys, stored by hash only. (Webhook signing secrets: functions/ports/signing-secret-store.ts.) */
export interface ApiKeyRepository {
  put(record: ApiKeyRecord): Promise<void>;
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  listByAccount(account: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns the updated record, or undefined when there is no such key. */
  revoke(keyId: string, at: Date): Promise<ApiKeyRecord | undefined>;
}
