import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` characters of base62 from the system CSPRNG. Rejection sampling (bytes >= 248 are dropped)
 * keeps every character uniform: 5.95 bits of entropy each.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Big-endian base62 of arbitrary bytes, left-padded to `width`; used for checksums and derived ids. */
export function bytesToBase62(bytes: Uint8Array, width: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = '';
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out.padStart(width, '0').slice(-width);
}

/** 24 base62 characters: 142 bits, above the 128 bits PRODUCT.md asks of every public id. */
export const ID_RANDOM_LENGTH = 24;

export const newLinkId = (): string => `pl_${randomBase62(ID_RANDOM_LENGTH)}`;
export const newEventId = (): string => `evt_${randomBase62(ID_RANDOM_LENGTH)}`;

/**
 * Whether a string has the shape of one of our ids. Anything else names nothing, so it is answered as not found
 * without a lookup (and never reaches a database key: an overlong one would be a store error, not a 404).
 */
export const isLinkId = (id: string): boolean => /^pl_[0-9A-Za-z]{22,64}$/.test(id);
export const isEventId = (id: string): boolean => /^evt_[0-9A-Za-z]{22,64}$/.test(id);
