import { bytesToBase62, randomBase62 } from './random.ts';

/**
 * Every public id is `<prefix>_<base62>`: the prefix names what the id is (`pl` payment link, `evt` event, `key`
 * API key, `pc` PSP connection, `pay` payment, `re` refund, `we` webhook endpoint, `sub` subscription, `stl` settlement), so a stray id is recognisable in a log or a support
 * ticket and never reaches the wrong table. A new kind of record adds its prefix here and gets its generator, its
 * check and its OpenAPI pattern from it.
 */
export const ID_PREFIXES = ['pl', 'evt', 'key', 'pc', 'pay', 're', 'we', 'sub', 'stl'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/** 24 base62 characters: 142 bits, above the 128 bits every public id must have (docs/decisions.md#ids). */
export const ID_RANDOM_LENGTH = 24;

/** The shortest random part we issue (API key ids: 128 bits) and the longest we accept. */
const MIN_ID_RANDOM_LENGTH = 22;
const MAX_ID_RANDOM_LENGTH = 64;

/** The id pattern without anchors. */
export const idPatternBody = (prefix: IdPrefix): string =>
  `${prefix}_[0-9A-Za-z]{${MIN_ID_RANDOM_LENGTH},${MAX_ID_RANDOM_LENGTH}}`;

/** The longest id with `prefix`, the bound the OpenAPI document states. */
export const maxIdLength = (prefix: IdPrefix): number => prefix.length + 1 + MAX_ID_RANDOM_LENGTH;

/** The whole-string pattern of an id with `prefix`, for validation and the OpenAPI document. */
export const idPattern = (prefix: IdPrefix): RegExp => new RegExp(`^${idPatternBody(prefix)}$`);

export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(ID_RANDOM_LENGTH)}`;

/**
 * Base62 digits of a time in ms, most significant first: the base62 alphabet is in ASCII order, so the digits sort
 * as the times do.
 */
const TIME_DIGITS = 8;
const timeDigits = (at: Date): string => {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(at.getTime()));
  return bytesToBase62(bytes, TIME_DIGITS);
};

/**
 * An id that sorts after every id of its prefix made earlier: 8 base62 digits of `at` (milliseconds, good until
 * the year 8888), then 22 random characters (131 bits, the least any id has), so that it is no less
 * unpredictable and only 6 characters longer than a random id (a reusable link's item names up to 1,500 of them).
 */
export const timeOrderedId = (prefix: IdPrefix, at: Date): string =>
  `${prefix}_${timeDigits(at)}${randomBase62(MIN_ID_RANDOM_LENGTH)}`;

/** Whether an id has `timeOrderedId`'s shape (random ids have 24 characters, 30 is this shape's). */
export const isTimeOrderedId = (prefix: IdPrefix, id: string): boolean =>
  id.length === prefix.length + 1 + TIME_DIGITS + MIN_ID_RANDOM_LENGTH && isId(prefix, id);

/** The least time-ordered id with `prefix` made at or after `at`: a bound to read them from. */
export const timeOrderedIdFloor = (prefix: IdPrefix, at: Date): string => `${prefix}_${timeDigits(at)}`;

/** An id derived from bytes (a hash) instead of drawn at random: the same input always names the same record. */
export const idFromBytes = (prefix: IdPrefix, bytes: Uint8Array, length = ID_RANDOM_LENGTH): string =>
  `${prefix}_${bytesToBase62(bytes, length)}`;

/**
 * Whether a string has the shape of an id with `prefix`. Anything else names nothing, so it is answered as not
 * found without a lookup (and never reaches a database key: an overlong one would be a store error, not a 404).
 */
export const isId = (prefix: IdPrefix, id: string): boolean => idPattern(prefix).test(id);
