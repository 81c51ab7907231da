import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import {
  PREFIX_KINDS,
  SEARCH_HEAD_LENGTH,
  type SearchableType,
  type SearchToken,
  tokenText,
} from '../../domain/search.ts';
import type { ItemKey } from './query.ts';
import { bookPosition, SEARCH_SHARDS, searchKeys, shardOf } from './table-schema.ts';

/**
 * The search keys each payment, refund and link writes with it (docs/data-model.md#search). Apart from their reader
 * (search-index.ts), so that the functions that only write them carry none of what reading them needs.
 */

/** What an entity's search keys name: enough to read it back by its key. */
export interface Searchable {
  type: SearchableType;
  id: string;
  link_id: string;
  account: string;
  mode: Mode;
  created_at: string;
}

/** The first characters of a prefix kind's token, a whole exact kind's: the partition its key is in. */
export const headOf = (token: SearchToken): string =>
  PREFIX_KINDS.has(token.kind) ? token.value.slice(0, SEARCH_HEAD_LENGTH) : token.value;

function searchKey(entity: Searchable, token: SearchToken): ItemKey {
  const shard = shardOf(entity.id, SEARCH_SHARDS);
  return {
    pk: searchKeys.partition(entity.account, entity.mode, token.kind, headOf(token), shard),
    sk: searchKeys.sort(token.value, bookPosition(entity)),
  };
}

/** The tokens of `after` that `before` lacks, and those of `before` that `after` lacks. */
export function tokenChanges(
  before: readonly SearchToken[],
  after: readonly SearchToken[],
): { added: SearchToken[]; removed: SearchToken[] } {
  const had = new Set(before.map(tokenText));
  const has = new Set(after.map(tokenText));
  return {
    added: after.filter((token) => !had.has(tokenText(token))),
    removed: before.filter((token) => !has.has(tokenText(token))),
  };
}

/**
 * Writes the search keys of `added` and deletes those of `removed` (docs/data-model.md#search), one item each, in
 * parallel: before the entity's own write, so that no stored entity lacks a key it answers to and no erased detail
 * outlives its erasure in a key. A key whose entity's write then failed finds nothing: readers check each entity
 * against the query.
 */
export async function writeSearchKeys(
  client: DynamoDBDocumentClient,
  tableName: string,
  entity: Searchable,
  changes: { added?: readonly SearchToken[]; removed?: readonly SearchToken[] },
): Promise<void> {
  // What names the entity, and nothing more of it: a payment's item holds personal data, its keys only their token.
  const { type, id, link_id, account, mode, created_at } = entity;
  const names = { type, id, link_id, account, mode, created_at };
  await Promise.all([
    ...(changes.added ?? []).map((token) =>
      client.send(new PutCommand({ TableName: tableName, Item: { ...searchKey(entity, token), ...names } })),
    ),
    ...(changes.removed ?? []).map((token) =>
      client.send(new DeleteCommand({ TableName: tableName, Key: searchKey(entity, token) })),
    ),
  ]);
}
