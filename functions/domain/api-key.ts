import { hash as digestOf, timingSafeEqual } from 'node:crypto';
import { idFromBytes } from './ids.ts';
import { MODES, type Mode } from './principal.ts';
import { bytesToBase62, randomBase62 } from './random.ts';

/**
 * API keys: `svc_<mode>_` + 32 base62 characters (190 random bits) + a 6-character checksum of all that
 * precedes it, so secret scanners (and we, before any database read) can tell a real key from a look-alike.
 * Only the SHA-256 of the whole key is stored; the key id is derived from that hash, so a lookup needs no
 * second index and the id reveals nothing about the key.
 */
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^svc_(${MODES.join('|')})_([0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}})$`,
);
export const ACCOUNT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export interface ApiKeyRecord {
  key_id: string;
  account: string;
  mode: Mode;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  /** The first characters of the key, enough for a person to recognise it in a list. */
  display_prefix: string;
  status: 'active' | 'revoked';
  created_at: string;
  revoked_at: string | null;
}

function checksum(body: string): string {
  return bytesToBase62(digestOf('sha256', body, 'buffer').subarray(0, 5), CHECKSUM_LENGTH);
}

export function hashApiKey(key: string): string {
  return digestOf('sha256', key, 'hex');
}

export function keyIdFromHash(hash: string): string {
  return idFromBytes('key', Buffer.from(hash, 'hex').subarray(0, 16), 22);
}

/**
 * The mode a well-formed key belongs to, or undefined when the string cannot be one of our keys. `hash` is the
 * key's `hashApiKey`, when the caller has computed it already.
 */
export function parseApiKey(
  key: string,
  hash = hashApiKey(key),
): { mode: Mode; hash: string; keyId: string } | undefined {
  const match = KEY_PATTERN.exec(key);
  if (!match) return undefined;
  const body = key.slice(0, -CHECKSUM_LENGTH);
  if (checksum(body) !== key.slice(-CHECKSUM_LENGTH)) return undefined;
  return { mode: match[1] as Mode, hash, keyId: keyIdFromHash(hash) };
}

export function generateApiKey(
  account: string,
  mode: Mode,
  now: Date,
): { key: string; record: ApiKeyRecord } {
  const body = `svc_${mode}_${randomBase62(RANDOM_LENGTH)}`;
  const key = body + checksum(body);
  const hash = hashApiKey(key);
  return {
    key,
    record: {
      key_id: keyIdFromHash(hash),
      account,
      mode,
      hash,
      display_prefix: `${key.slice(0, `svc_${mode}_`.length + 4)}…`,
      status: 'active',
      created_at: now.toISOString(),
      revoked_at: null,
    },
  };
}

export function hashesMatch(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
