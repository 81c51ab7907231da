import { createHash } from 'node:crypto';
import { type IdPrefix, idPatternBody } from './ids.ts';
import type { Principal } from './principal.ts';

/**
 * Pagination cursors. A cursor is opaque to clients but carries no secret: it holds only a position inside the
 * caller's own listing (`<created_at>#<id>`) and a tag of the (account, mode) it was issued to. The listing's
 * partition always comes from the caller's key, never from the cursor, so no cursor, forged or not, can reach
 * another tenant's links; the tag only turns a cursor used with another key into a clear error. Hence no
 * signing key to provision, rotate or leak (docs/api.md#pagination).
 */
const position = (prefix: IdPrefix) =>
  new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#${idPatternBody(prefix)}$`);
/** The listings that page: payment links (`pl`), events (`evt`), the books' payments and refunds, subscriptions, settlements. */
const POSITIONS: Partial<Record<IdPrefix, RegExp>> = {
  pl: position('pl'),
  evt: position('evt'),
  pay: position('pay'),
  re: position('re'),
  sub: position('sub'),
  stl: position('stl'),
};
const MAX_CURSOR_LENGTH = 256;

const tenantTag = (principal: Principal) =>
  createHash('sha256').update(`${principal.account}\n${principal.mode}`).digest('base64url').slice(0, 16);

export function encodeCursor(principal: Principal, position: string): string {
  return Buffer.from(JSON.stringify({ p: position, t: tenantTag(principal) })).toString('base64url');
}

/**
 * The position a cursor names, or `undefined` for anything malformed, issued to another (account, mode), or
 * naming a position of another listing (`of`: the id prefix of what is listed).
 */
export function decodeCursor(
  principal: Principal,
  cursor: string,
  of: 'pl' | 'evt' | 'pay' | 're' | 'sub' | 'stl' = 'pl',
): string | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof decoded !== 'object' || decoded === null) return undefined;
    const { p, t } = decoded as { p?: unknown; t?: unknown };
    if (typeof p !== 'string' || !POSITIONS[of]?.test(p) || t !== tenantTag(principal)) return undefined;
    return p;
  } catch {
    return undefined;
  }
}
