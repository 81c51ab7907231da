import { bytesToBase62, randomBase62 } from './random.ts';

/**
 * Every public id is `<prefix>_<base62>`: the prefix names what the id is (`pl` payment link, `evt` event, `key`
 * API key, `pc` PSP connection, `pay` payment, `re` refund, `we` webhook endpoint), so a stray id is recognisable in a log or a support
 * ticket and never reaches the wrong table. A new kind of record adds its prefix here and gets its generator, its
 * check and its OpenAPI pattern from it.
 */
export const ID_PREFIXES = ['pl', 'evt', 'key', 'pc', 'pay', 're', 'we'] as const;
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

/** An id derived from bytes (a hash) instead of drawn at random: the same input always names the same record. */
export const idFromBytes = (prefix: IdPrefix, bytes: Uint8Array, length = ID_RANDOM_LENGTH): string =>
  `${prefix}_${bytesToBase62(bytes, length)}`;

/**
 * Whether a string has the shape of an id with `prefix`. Anything else names nothing, so it is answered as not
 * found without a lookup (and never reaches a database key: an overlong one would be a store error, not a 404).
 */
export const isId = (prefix: IdPrefix, id: string): boolean => idPattern(prefix).test(id);
