import type { Amount } from '../../domain/money.ts';
import { MODES } from '../../domain/principal.ts';
import { logger } from '../../logger.ts';
import { KEY_ATTRIBUTES } from './table-schema.ts';

/**
 * How a mapper reads a stored item as its domain type (docs/data-model.md#reading-an-item). A mapper lists one
 * decoder per field of the type (`FieldDecoders`, which the compiler keeps complete): each checks the stored
 * value, and one whose field came later gives older items its default (`withDefault`). `itemDecoder` makes the
 * list the mapper's read. Plain functions and `typeof` checks: an item is decoded on every read, and a checkout
 * reads a link and its payments on every visit.
 *
 * Nothing is built while a bundle loads: a mapper's list is a function `itemDecoder` calls on the first read,
 * a decoder shared between lists is `lazy`, and each call at a module's top level is marked `@__PURE__`, so
 * that esbuild drops the mappers a function never uses (every function imports the composition root, which
 * imports every repository; esbuild honours `@__NO_SIDE_EFFECTS__` only within the declaring file).
 */

/** Reads one stored value; throws a mismatch when the value is not of its type. */
export type Decoder<T> = (value: unknown) => T;

/**
 * One decoder for every field of `T`, optional fields included, so that a field added to `T` does not compile
 * until its mapper says how an item without it reads. (Not the homomorphic `keyof T` form: on a union type it
 * would ask for one list per member; this one lists the members' common fields once.)
 */
export type FieldDecoders<T> = { [K in keyof T & string]: Decoder<T[K]> };

/** A stored value that is not what its decoder reads, at `path` inside the item. */
class Mismatch extends Error {
  readonly path: readonly (string | number)[];

  constructor(message: string, path: readonly (string | number)[] = []) {
    super(message);
    this.path = path;
  }
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'binary';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number that is not finite';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

/** Throws the mismatch of a value that is not what a decoder reads (for a mapper's own decoders). */
export const mismatch = (expected: string, found: unknown): never => {
  // Only the kind of the value found, never the value itself: it may be personal data, and this is logged.
  throw new Mismatch(`expected ${expected}, found ${kindOf(found)}`);
};

/** An item whose attributes are not the entity its key says: corrupt, or written by something else. */
export class UndecodableItemError extends Error {
  readonly entity: string;
  readonly pk: string;
  readonly sk: string;
  /** Which attribute, what was expected and what kind of value was found (never the value). */
  readonly reason: string;

  constructor(entity: string, item: Record<string, unknown>, cause: Mismatch) {
    const reason = cause.path.length ? `${cause.path.join('.')}: ${cause.message}` : cause.message;
    const [pk, sk] = [String(item.pk), String(item.sk)];
    super(`The stored ${entity} ${pk} / ${sk} does not decode (${reason}).`);
    this.name = 'UndecodableItemError';
    this.entity = entity;
    this.pk = pk;
    this.sk = sk;
    this.reason = reason;
  }
}

export const string: Decoder<string> = (value) =>
  typeof value === 'string' ? value : mismatch('a string', value);

export const number: Decoder<number> = (value) =>
  typeof value === 'number' && Number.isFinite(value) ? value : mismatch('a number', value);

export const boolean: Decoder<boolean> = (value) =>
  typeof value === 'boolean' ? value : mismatch('a boolean', value);

/** One of `values`, e.g. a status. */
export function oneOf<const V extends readonly string[]>(values: V): Decoder<V[number]> {
  const expected = `one of ${values.join(', ')}`;
  return (value) => (values.includes(value as string) ? (value as V[number]) : mismatch(expected, value));
}

/** Exactly `expected`, e.g. a resource's `object` or a flag stored only when set. */
export function literal<const V extends string | number | boolean>(expected: V): Decoder<V> {
  const described = JSON.stringify(expected);
  return (value) => (value === expected ? expected : mismatch(described, value));
}

/** A value, or null where the type allows it. Absent is still a mismatch: see `withDefault`. */
export const nullable =
  <T>(decode: Decoder<T>): Decoder<T | null> =>
  (value) =>
    value === null ? null : decode(value);

/** A value the type may lack: absent stays absent (the decoded object has no such key). */
export const optional =
  <T>(decode: Decoder<T>): Decoder<T | undefined> =>
  (value) =>
    value === undefined ? undefined : decode(value);

/**
 * A field that came after the first items: absent reads as `fallback()` (a function, so that no two items share
 * a default list or map). Its mapper's comment says since when.
 */
export const withDefault =
  <T>(decode: Decoder<T>, fallback: () => T): Decoder<T> =>
  (value) =>
    value === undefined ? fallback() : decode(value);

export function arrayOf<T>(decode: Decoder<T>): Decoder<T[]> {
  return (value) => {
    if (!Array.isArray(value)) return mismatch('a list', value);
    return value.map((element, index) => decodeAt(index, decode, element));
  };
}

/** A map of any keys to values of one type. */
export function recordOf<T>(decode: Decoder<T>): Decoder<Record<string, T>> {
  return (value) => {
    if (!isMap(value)) return mismatch('a map', value);
    const decoded: Record<string, T> = {};
    for (const [key, element] of Object.entries(value)) decoded[key] = decodeAt(key, decode, element);
    return decoded;
  };
}

/** What a map's decoder does with attributes its fields do not name. */
export interface Others {
  /** Left out: attributes that are not the type's (keys, another record's fields in the same item). */
  omit?: readonly string[];
  /** `drop`: none kept, for a record that shares its item with others (a connection's health). */
  keep?: 'others' | 'drop';
}

/**
 * A map holding the fields of `T`, each checked by its decoder. Attributes it does not name are kept as they are
 * (unless `others` says otherwise): a function deployed before a field existed carries it through when it writes
 * the item back (a deployment updates the functions one at a time). The attributes keep the item's order (a
 * resource built from the record, a webhook's body, reads the same as before), and a default comes last.
 */
export function objectOf<T>(fields: FieldDecoders<T>, others: Others = {}): Decoder<T> {
  const decoders = Object.entries(fields) as [string, Decoder<unknown>][];
  const omit = new Set(others.omit);
  const keep = others.keep !== 'drop';
  return (value) => {
    if (!isMap(value)) return mismatch('a map', value);
    const decoded = keep ? copiedExcept(value, omit) : {};
    for (const [field, decode] of decoders) {
      const read = decodeAt(field, decode, value[field]);
      // Set in place, never deleted: `delete` would make the record a slow dictionary-mode object.
      if (read !== undefined) decoded[field] = read;
    }
    return decoded as T;
  };
}

function copiedExcept(value: Record<string, unknown>, left: ReadonlySet<string>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const attribute in value) if (!left.has(attribute)) copy[attribute] = value[attribute];
  return copy;
}

export const mode = /* @__PURE__ */ oneOf(MODES);

export const amount = /* @__PURE__ */ objectOf<Amount>({ value: string, currency: string });

/** A decoder built on its first use (see the top of this file). */
export function lazy<T>(build: () => Decoder<T>): Decoder<T> {
  let decode: Decoder<T> | undefined;
  return (value) => {
    decode ??= build();
    return decode(value);
  };
}

/**
 * A map the service writes whole and reads as it wrote it (a buyer's details, a routing rule's condition): checked
 * to be a map, and the fields in `checked` by their decoders; the rest is left to its writer. For values whose
 * other fields the mappers never read.
 */
export const wholeMap = <T extends object>(checked: Partial<FieldDecoders<T>> = {}): Decoder<T> =>
  objectOf(checked as FieldDecoders<T>);

/** `decode(value)`, a mismatch inside it placed at `step`. */
function decodeAt<T>(step: string | number, decode: Decoder<T>, value: unknown): T {
  try {
    return decode(value);
  } catch (error) {
    throw error instanceof Mismatch ? new Mismatch(error.message, [step, ...error.path]) : error;
  }
}

/** `read()`, a mismatch inside it placed at `path` (for a mapper's steps after its fields are decoded). */
export function within<T>(path: readonly (string | number)[], read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof Mismatch ? new Mismatch(error.message, [...path, ...error.path]) : error;
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  );
}

/**
 * A mapper's read of a whole item: its fields decoded (the list `fields` returns, on the first read), its key and
 * index attributes left out (and `others.omit`, attributes that are the adapter's, not the type's). An item that
 * does not decode throws `UndecodableItemError`.
 */
export function itemDecoder<T>(
  entity: string,
  fields: () => FieldDecoders<T>,
  others: Others = {},
): (item: Record<string, unknown>) => T {
  const decode = lazy(() =>
    objectOf(fields(), { ...others, omit: [...KEY_ATTRIBUTES, ...(others.omit ?? [])] }),
  );
  return (item) => decodeItem(entity, decode, item);
}

/** `decode` applied to a whole item, a mismatch anywhere in it an `UndecodableItemError` naming the item. */
export function decodeItem<T>(entity: string, decode: Decoder<T>, item: Record<string, unknown>): T {
  try {
    return decode(item);
  } catch (error) {
    throw error instanceof Mismatch ? new UndecodableItemError(entity, item, error) : error;
  }
}

/**
 * The items of a list that decode, in order (docs/data-model.md#reading-an-item): one that does not is logged with
 * its keys and left out, so that one bad item never fails the list it is in.
 */
export function decodedItems<T>(
  items: readonly Record<string, unknown>[],
  decode: (item: Record<string, unknown>) => T,
): T[] {
  const decoded: T[] = [];
  for (const item of items) {
    try {
      decoded.push(decode(item));
    } catch (error) {
      if (!(error instanceof UndecodableItemError)) throw error;
      logger.error(UNDECODABLE_SKIPPED, {
        entity: error.entity,
        pk: error.pk,
        sk: error.sk,
        reason: error.reason,
      });
    }
  }
  return decoded;
}

/** The log message of an item a list left out: one message, so that an alarm or a search finds every such item. */
export const UNDECODABLE_SKIPPED = 'Stored item does not decode: left out of the list';
