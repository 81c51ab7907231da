import type { RefundEntry } from './books.ts';
import { isErased, type PaymentBuyer } from './buyer.ts';
import type { Amount } from './money.ts';

/**
 * The console's one search box (docs/console.md#search), pure: what an entity is found by (its search tokens,
 * which its repository writes with it as keys of the search index) and what a typed query asks for (its terms).
 */

export const SEARCH_KINDS = ['id', 'reference', 'email', 'amount', 'metadata'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** What an entity is found by: a normalised value of one kind. */
export interface SearchToken {
  kind: SearchKind;
  value: string;
}

/** What a query asks for: tokens of `kind` equal to `value`, or starting with it when `prefix`. */
export interface SearchTerm extends SearchToken {
  prefix: boolean;
}

/** The kinds a query finds by prefix; the others only whole. */
export const PREFIX_KINDS: ReadonlySet<SearchKind> = new Set(['reference', 'email']);

/** Most tokens one entity writes (docs/scaling.md#search): each is an item of the index, one write unit. */
export const MAX_SEARCH_TOKENS = 8;
/** Most tokens of a reference: the whole, then its parts after the first (which the whole's prefix finds). */
export const MAX_REFERENCE_TOKENS = 4;
/** Metadata values longer than this are not indexed (a key holds the value, and an item's key is bounded). */
export const MAX_INDEXED_VALUE_LENGTH = 100;
/** Most entities one search shows (docs/console.md#search). */
export const MAX_SEARCH_RESULTS = 50;
/** A prefix term shorter than this finds only whole tokens: the index keeps a prefix's first characters as a key. */
export const SEARCH_HEAD_LENGTH = 3;

/** What every searchable entity's tokens are written and kept with. */
export type SearchableType = 'payment' | 'refund' | 'link';

/** Characters a token never holds: the index separates a token from what follows it in its key with one. */
const CONTROL = /\p{Cc}/u;

/** A reference as the index holds it: lower case, its letters and digits only ("ORD-4711" → "ord4711"). */
export const normalisedReference = (text: string): string =>
  text.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/** A reference's tokens: the whole, normalised, and each part after the first ("ORD-4711" → ord4711, 4711). */
export function referenceTokens(reference: string): SearchToken[] {
  const whole = normalisedReference(reference);
  if (!whole) return [];
  const parts = reference
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(1);
  const values = [...new Set([whole, ...parts])].slice(0, MAX_REFERENCE_TOKENS);
  return values.map((value) => ({ kind: 'reference', value }));
}

/**
 * An amount's value as the index holds it, whatever its currency: no leading zeros, no trailing fraction zeros
 * ("49.90" → "49.9", "10.00" → "10"), so that "49.9" and "49.90" are one amount.
 */
export function canonicalAmount(value: string): string | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return undefined;
  const whole = (match[1] ?? '').replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

const amountToken = (amount: Amount | null | undefined): SearchToken[] => {
  const value = amount && canonicalAmount(amount.value);
  return value ? [{ kind: 'amount', value }] : [];
};

const emailToken = (buyer: PaymentBuyer | undefined): SearchToken[] =>
  buyer && !isErased(buyer) && buyer.email ? [{ kind: 'email', value: buyer.email.toLowerCase() }] : [];

/** The tokens of an entity, each once, without control characters, at most `MAX_SEARCH_TOKENS`. */
function bounded(tokens: SearchToken[]): SearchToken[] {
  const seen = new Set<string>();
  return tokens
    .filter((token) => {
      const key = tokenText(token);
      if (seen.has(key) || CONTROL.test(token.value) || !token.value) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_SEARCH_TOKENS);
}

/** A token as one string (`<kind>:<value>`): what the index's keys and a comparison use. */
export const tokenText = (token: SearchToken): string => `${token.kind}:${token.value}`;

/** A payment is found by its id, its amount, its buyer's reference and its buyer's e-mail address. */
export function paymentTokens(payment: {
  id: string;
  amount?: Amount | undefined;
  client_reference_id?: string | undefined;
  buyer?: PaymentBuyer | undefined;
}): SearchToken[] {
  return bounded([
    { kind: 'id', value: payment.id },
    ...amountToken(payment.amount),
    ...emailToken(payment.buyer),
    ...(payment.client_reference_id ? referenceTokens(payment.client_reference_id) : []),
  ]);
}

/** A refund is found by its id, its amount and its payment's reference (which its entry copies). */
export function refundTokens(
  entry: Pick<RefundEntry, 'id' | 'amount' | 'client_reference_id'>,
): SearchToken[] {
  return bounded([
    { kind: 'id', value: entry.id },
    ...amountToken(entry.amount),
    ...(entry.client_reference_id ? referenceTokens(entry.client_reference_id) : []),
  ]);
}

/**
 * A link is found by its id alone without the index (its key), and through it by its metadata values (whole, any
 * case; the first ones in the metadata's order, up to `MAX_SEARCH_TOKENS`). Not by its amount: a link is created
 * far more often than searched for, and its payments carry the amount (docs/scaling.md#search).
 */
export function linkTokens(link: {
  metadata?: Readonly<Record<string, string>> | null | undefined;
}): SearchToken[] {
  const values = Object.values(link.metadata ?? {})
    .map((value) => value.trim().toLowerCase())
    .filter((value) => value.length <= MAX_INDEXED_VALUE_LENGTH);
  return bounded(values.map((value): SearchToken => ({ kind: 'metadata', value })));
}

/** Whether a token answers a term. */
export const answers = (term: SearchTerm, token: SearchToken): boolean =>
  term.kind === token.kind && (term.prefix ? token.value.startsWith(term.value) : token.value === term.value);

/** Whether any of an entity's current tokens answers any term: what a hit is checked against when read. */
export const matchesAny = (terms: readonly SearchTerm[], tokens: readonly SearchToken[]): boolean =>
  terms.some((term) => tokens.some((token) => answers(term, token)));

const ID_QUERY = /^(pay|re|pl|sub)_[0-9A-Za-z]+$/;
const CURRENCY = '(?:[€$£¥]|[A-Za-z]{3})';
const AMOUNT_QUERY = new RegExp(String.raw`^${CURRENCY}?\s*(\d[\d.,'\s\u00a0\u202f]*)\s*${CURRENCY}?$`, 'u');

/**
 * The amounts a typed amount may mean, canonical ("€49.90", "49,90 EUR" → 49.9): the last separator is the decimal
 * one when both kinds appear, a repeated one groups thousands, and one followed by exactly three digits may be
 * either ("1.000" → 1 and 1000), so both are asked.
 */
export function typedAmounts(query: string): string[] {
  const digits = AMOUNT_QUERY.exec(query.trim())?.[1]?.replace(/['\s\u00a0\u202f]/g, '');
  if (!digits || !/\d$/.test(digits)) return [];
  const separators = digits.replace(/\d/g, '');
  const decimal = /[.,]/.exec(separators.slice(-1))?.[0];
  const readings: string[] = [];
  if (!decimal) readings.push(digits);
  else if (new Set(separators).size === 2) readings.push(withDecimal(digits, decimal));
  else if (separators.length > 1) readings.push(digits.replaceAll(decimal, ''));
  else {
    readings.push(withDecimal(digits, decimal));
    if (/[.,]\d{3}$/.test(digits)) readings.push(digits.replace(decimal, ''));
  }
  const canonical = readings.map(canonicalAmount).filter((value): value is string => value !== undefined);
  return [...new Set(canonical)];
}

const withDecimal = (digits: string, decimal: string): string => {
  const at = digits.lastIndexOf(decimal);
  return `${digits.slice(0, at).replace(/[.,]/g, '')}.${digits.slice(at + 1)}`;
};

/**
 * What a typed query asks for: an id whole (exact case); an amount in any currency; a reference by the prefix of
 * its normalised whole or of one of its parts; an e-mail address by its prefix (any case); a metadata value whole
 * (any case). Empty for an empty query.
 */
export function searchTerms(query: string): SearchTerm[] {
  const text = query.trim();
  if (!text || CONTROL.test(text)) return [];
  if (ID_QUERY.test(text)) return [{ kind: 'id', value: text, prefix: false }];
  const lower = text.toLowerCase();
  const reference = normalisedReference(text);
  const terms: SearchTerm[] = [
    ...typedAmounts(text).map((value): SearchTerm => ({ kind: 'amount', value, prefix: false })),
    ...(reference && !text.includes('@')
      ? [{ kind: 'reference' as const, value: reference, prefix: true }]
      : []),
    ...(/^[^\s@]+(@[^\s@]*)?$/.test(lower) ? [{ kind: 'email' as const, value: lower, prefix: true }] : []),
    ...(lower.length <= MAX_INDEXED_VALUE_LENGTH
      ? [{ kind: 'metadata' as const, value: lower, prefix: false }]
      : []),
  ];
  return terms;
}
