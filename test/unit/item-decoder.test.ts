import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  amount,
  arrayOf,
  decodedItems,
  itemDecoder,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
  UNDECODABLE_SKIPPED,
  UndecodableItemError,
  withDefault,
} from '../../functions/adapters/dynamodb/item-decoder.ts';
import { logger } from '../../functions/logger.ts';

interface Order {
  id: string;
  status: 'open' | 'paid';
  email: string | null;
  lines: { name: string; amount: { value: string; currency: string } }[];
  note?: string;
  tags: string[];
}

const decodeOrder = itemDecoder<Order>('order', () => ({
  id: string,
  status: oneOf(['open', 'paid']),
  email: nullable(string),
  lines: arrayOf(objectOf({ name: string, amount })),
  note: optional(string),
  // Came later: absent on older orders.
  tags: withDefault(arrayOf(string), () => []),
}));

const KEYS = { pk: 'ORDER#o_1', sk: 'MODE#test', gsi1pk: 'ORDERS#acme', gsi1sk: '2026-11-29#o_1', ttl: 1 };
const ORDER = {
  id: 'o_1',
  status: 'open',
  email: 'ada@example.com',
  lines: [{ name: 'Tea', amount: { value: '2.50', currency: 'EUR' } }],
};

/** The error `decode(item)` throws. */
function refusal(decode: () => unknown): UndecodableItemError {
  try {
    decode();
  } catch (error) {
    if (error instanceof UndecodableItemError) return error;
    throw error;
  }
  throw new Error('decoded');
}

afterEach(() => vi.restoreAllMocks());

describe('an item read through its decoder', () => {
  it('is its fields, without the key and index attributes and the expiry', () => {
    expect(decodeOrder({ ...KEYS, ...ORDER, tags: ['gift'] })).toEqual({ ...ORDER, tags: ['gift'] });
  });

  it('gives a field that came later its default, a fresh one on every read', () => {
    const first = decodeOrder({ ...KEYS, ...ORDER });
    const second = decodeOrder({ ...KEYS, ...ORDER });
    expect(first.tags).toEqual([]);
    expect(first.tags).not.toBe(second.tags);
    expect(first).not.toHaveProperty('note');
  });

  it('keeps the item’s order of attributes, a default last, so that what is built from it reads as before', () => {
    const item = { ...KEYS, note: 'n', lines: ORDER.lines, id: 'o_1', email: null, status: 'paid' };
    expect(Object.keys(decodeOrder(item))).toEqual(['note', 'lines', 'id', 'email', 'status', 'tags']);
  });

  it('keeps attributes its decoder does not name, so that an older function writes them back', () => {
    expect(decodeOrder({ ...KEYS, ...ORDER, gift_wrap: { paper: 'red' } })).toMatchObject({
      gift_wrap: { paper: 'red' },
    });
  });

  it('is refused, naming the item, the attribute and what was expected', () => {
    const error = refusal(() => decodeOrder({ ...KEYS, ...ORDER, status: 'shipped' }));
    expect(error).toMatchObject({ entity: 'order', pk: KEYS.pk, sk: KEYS.sk });
    expect(error.reason).toBe('status: expected one of open, paid, found a string');
    expect(error.message).toBe(
      `The stored order ${KEYS.pk} / ${KEYS.sk} does not decode (status: expected one of open, paid, found a string).`,
    );
  });

  it('is refused when a required field is absent, even a nullable one', () => {
    const { email: _email, ...withoutEmail } = ORDER;
    expect(refusal(() => decodeOrder({ ...KEYS, ...withoutEmail })).reason).toBe(
      'email: expected a string, found nothing',
    );
  });

  it('names where inside a list or map the value that does not decode is', () => {
    const lines = [...ORDER.lines, { name: 'Cake', amount: { value: 3, currency: 'EUR' } }];
    expect(refusal(() => decodeOrder({ ...KEYS, ...ORDER, lines })).reason).toBe(
      'lines.1.amount.value: expected a string, found a number',
    );
  });

  it('never tells the value it refused, which may be personal data', () => {
    const error = refusal(() => decodeOrder({ ...KEYS, ...ORDER, email: ['ada@example.com'] }));
    expect(error.reason).toBe('email: expected a string, found a list');
    expect(error.message).not.toContain('ada@example.com');
  });

  it('refuses a number that is not one (NaN), and a map that is a list', () => {
    const decodeCount = itemDecoder<{ count: number; lines: Order['lines'] }>('count', () => ({
      count: number,
      lines: arrayOf(objectOf({ name: string, amount })),
    }));
    expect(refusal(() => decodeCount({ ...KEYS, count: Number.NaN, lines: [] })).reason).toBe(
      'count: expected a number, found a number that is not finite',
    );
    expect(refusal(() => decodeCount({ ...KEYS, count: 1, lines: [[]] })).reason).toBe(
      'lines.0: expected a map, found a list',
    );
  });
});

describe('a list of items', () => {
  it('leaves out an item that does not decode and logs it with its keys, and keeps the others in order', () => {
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const items = [
      { ...KEYS, ...ORDER, id: 'o_1' },
      { ...KEYS, sk: 'MODE#live', ...ORDER, id: 'o_2', lines: 'none' },
      { ...KEYS, ...ORDER, id: 'o_3' },
    ];
    expect(decodedItems(items, decodeOrder).map((order) => order.id)).toEqual(['o_1', 'o_3']);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged).toHaveBeenCalledWith(UNDECODABLE_SKIPPED, {
      entity: 'order',
      pk: KEYS.pk,
      sk: 'MODE#live',
      reason: 'lines: expected a list, found a string',
    });
  });

  it('lets any other failure of a read through: only an item that does not decode is left out', () => {
    const broken = () => {
      throw new TypeError('a bug');
    };
    expect(() => decodedItems([{ ...KEYS, ...ORDER }], broken)).toThrow(TypeError);
  });
});
