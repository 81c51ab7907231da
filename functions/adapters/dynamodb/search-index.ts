import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import {
  linkTokens,
  matchesAny,
  PREFIX_KINDS,
  paymentTokens,
  refundTokens,
  SEARCH_HEAD_LENGTH,
  type SearchableType,
  type SearchTerm,
  type SearchToken,
  tokenText,
} from '../../domain/search.ts';
import type { SearchIndex, SearchResult } from '../../ports/search-index.ts';
import { decodedItems } from './item-decoder.ts';
import { linkFromItem } from './link-mapper.ts';
import { paymentFromItem } from './payment-mapper.ts';
import { type ItemKey, itemsByKey } from './query.ts';
import { refundEntryFromItem } from './refund-mapper.ts';
import {
  bookKeys,
  bookPosition,
  keys,
  paymentKeys,
  SEARCH_SHARDS,
  searchKeys,
  shardOf,
} from './table-schema.ts';

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
const headOf = (token: SearchToken): string =>
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

/** The partitions and sort key condition of one term: an id's one shard, any other term's every shard. */
function termQueries(
  account: string,
  mode: Mode,
  term: SearchTerm,
  limit: number,
): Omit<QueryCommandInput, 'TableName'>[] {
  const head = PREFIX_KINDS.has(term.kind) ? term.value.slice(0, SEARCH_HEAD_LENGTH) : term.value;
  const whole = !term.prefix || term.value.length < SEARCH_HEAD_LENGTH;
  const shards =
    term.kind === 'id'
      ? [shardOf(term.value, SEARCH_SHARDS)]
      : Array.from({ length: SEARCH_SHARDS }, (_, shard) => shard);
  return shards.map((shard) => ({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :token)',
    ExpressionAttributeValues: {
      ':pk': searchKeys.partition(account, mode, term.kind, head, shard),
      ':token': whole ? searchKeys.sort(term.value) : term.value,
    },
    ScanIndexForward: false,
    Limit: limit,
  }));
}

const entityKey = (hit: Searchable): ItemKey => {
  if (hit.type === 'payment') return paymentKeys.payment(hit.link_id, hit.mode, hit.id);
  if (hit.type === 'refund') return bookKeys.refundEntry(hit.link_id, hit.mode, hit.id);
  return keys.link(hit.id, hit.mode);
};

/** An entity's item as a result, with its tokens now (its key says which entity it is). */
function resultOf(item: Record<string, unknown>): { result: SearchResult; tokens: SearchToken[] } {
  const sk = String(item.sk);
  if (sk.startsWith('PAYMENT#')) {
    const payment = paymentFromItem(item);
    return { result: { type: 'payment', payment }, tokens: paymentTokens(payment) };
  }
  if (sk.startsWith('REFUND#')) {
    const refund = refundEntryFromItem(item);
    return { result: { type: 'refund', refund }, tokens: refundTokens(refund) };
  }
  const link = linkFromItem(item);
  return { result: { type: 'link', link }, tokens: linkTokens(link) };
}

/** The console's search index in the single table (docs/data-model.md#search). */
export class DynamoSearchIndex implements SearchIndex {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.client = client;
    this.tableName = tableName;
  }

  async find(
    account: string,
    mode: Mode,
    terms: readonly SearchTerm[],
    limit: number,
  ): Promise<SearchResult[]> {
    const queries = terms.flatMap((term) => termQueries(account, mode, term, limit));
    const pages = await Promise.all(
      queries.map((query) => this.client.send(new QueryCommand({ ...query, TableName: this.tableName }))),
    );
    const hits = new Map<string, Searchable>();
    for (const item of pages.flatMap((page) => page.Items ?? [])) {
      const hit = item as unknown as Searchable;
      hits.set(`${hit.type}#${hit.id}`, hit);
    }
    const newest = [...hits.values()]
      .sort((a, b) => bookPosition(b).localeCompare(bookPosition(a)))
      .slice(0, limit);
    const items = await itemsByKey(this.client, this.tableName, newest.map(entityKey));
    return decodedItems(items, resultOf)
      .filter(({ result, tokens }) => accountOf(result) === account && matchesAny(terms, tokens))
      .map(({ result }) => result);
  }
}

const accountOf = (result: SearchResult): string =>
  result.type === 'payment'
    ? result.payment.account
    : result.type === 'refund'
      ? result.refund.account
      : result.link.account;
