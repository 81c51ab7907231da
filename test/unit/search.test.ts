import { describe, expect, it } from 'vitest';
import {
  canonicalAmount,
  linkTokens,
  MAX_SEARCH_TOKENS,
  matchesAny,
  paymentTokens,
  referenceTokens,
  searchTerms,
  typedAmounts,
} from '../../functions/domain/search.ts';

describe('search tokens (docs/data-model.md#search)', () => {
  it('keeps a reference whole and each part after the first, letters and digits only, in lower case', () => {
    expect(referenceTokens('ORD-4711').map((token) => token.value)).toEqual(['ord4711', '4711']);
    expect(referenceTokens('Shop_2026-ord-77').map((token) => token.value)).toEqual([
      'shop2026ord77',
      '2026',
      'ord',
      '77',
    ]);
    expect(referenceTokens('a-b-c-d-e-f')).toHaveLength(4);
  });

  it('writes one amount for every way of writing it', () => {
    expect(['49.90', '49.9', '049.900'].map(canonicalAmount)).toEqual(['49.9', '49.9', '49.9']);
    expect(canonicalAmount('10.00')).toBe('10');
    expect(canonicalAmount('0.50')).toBe('0.5');
  });

  it("finds a payment by its buyer's e-mail in any case, and not once erased", () => {
    const payment = { id: 'pay_1', buyer: { email: 'Ada@Example.com' } };
    expect(matchesAny(searchTerms('ada@ex'), paymentTokens(payment))).toBe(true);
    expect(matchesAny(searchTerms('ada@ex'), paymentTokens({ id: 'pay_1', buyer: { erased_at: 'x' } }))).toBe(
      false,
    );
  });

  it('bounds the tokens of one entity', () => {
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`k${index}`, `v${index}`]));
    const tokens = linkTokens({ metadata });
    expect(tokens).toHaveLength(MAX_SEARCH_TOKENS);
    expect(linkTokens({ metadata: { long: 'x'.repeat(101) } })).toEqual([]);
  });
});

describe('search terms', () => {
  it.each([
    ['49.90', ['49.9']],
    ['49,90', ['49.9']],
    ['€49.90', ['49.9']],
    ['49,90 EUR', ['49.9']],
    ['1.002,50', ['1002.5']],
    ['1,002.50', ['1002.5']],
    ['1.000', ['1', '1000']],
    ['1 000', ['1000']],
    ['12', ['12']],
    ['ORD-4711', []],
  ])('reads the amount %s as %j', (query, amounts) => {
    expect(typedAmounts(query)).toEqual(amounts);
  });

  it('asks an id whole and alone, anything else by reference prefix, e-mail prefix and metadata value', () => {
    expect(searchTerms('pay_Abc123')).toEqual([{ kind: 'id', value: 'pay_Abc123', prefix: false }]);
    expect(searchTerms(' ORD-47 ')).toEqual([
      { kind: 'reference', value: 'ord47', prefix: true },
      { kind: 'email', value: 'ord-47', prefix: true },
      { kind: 'metadata', value: 'ord-47', prefix: false },
    ]);
    expect(searchTerms('')).toEqual([]);
  });

  it('finds "ORD-4711" by "4711", by "ord-47" and by "ORD4711", and not by "711"', () => {
    const tokens = paymentTokens({ id: 'pay_1', client_reference_id: 'ORD-4711' });
    for (const query of ['4711', 'ord-47', 'ORD4711'])
      expect(matchesAny(searchTerms(query), tokens)).toBe(true);
    expect(matchesAny(searchTerms('711'), tokens)).toBe(false);
  });
});
