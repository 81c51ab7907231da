import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../functions/domain/page-cursor.ts';

const acme = { account: 'acme', mode: 'test' } as const;
const position = '2026-01-01T10:00:00.000Z#pl_4f8Qm2Zk9WcT1bXy7LrN3s';

describe('pagination cursors', () => {
  it('round-trip a position for the tenant they were issued to', () => {
    expect(decodeCursor(acme, encodeCursor(acme, position))).toBe(position);
  });

  it('are refused by another account and by the other mode of the same account', () => {
    const cursor = encodeCursor(acme, position);
    expect(decodeCursor({ account: 'globex', mode: 'test' }, cursor)).toBeUndefined();
    expect(decodeCursor({ account: 'acme', mode: 'live' }, cursor)).toBeUndefined();
  });

  it('are refused when malformed, oversized or naming something other than a link position', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'not base64!',
      'x'.repeat(400),
      forged({ p: 'LINK#pl_x', t: 'x' }),
      forged({ p: position }),
      forged([position]),
      Buffer.from('{').toString('base64url'),
    ]) {
      expect(decodeCursor(acme, cursor)).toBeUndefined();
    }
  });
});
