import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn 4 KiB at a time and each handed out once, as Node's own `randomUUID` does: one call into
 * the CSPRNG per hundred-odd ids instead of one (and a fresh buffer) per id, a cost every created link paid.
 */
const pool = Buffer.alloc(4096);
let poolUsed = pool.length;

function randomByte(): number {
  if (poolUsed === pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  return pool[poolUsed++] as number;
}

/**
 * `length` characters of base62 from the system CSPRNG. Rejection sampling (bytes >= 248 are dropped)
 * keeps every character uniform: 5.95 bits of entropy each.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
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
