import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import {
  linkTokens,
  matchesAny,
  paymentTokens,
  refundTokens,
  SEARCH_HEAD_LENGTH,
  type SearchTerm,
  type SearchToken,
} from '../../domain/search.ts';
import type { SearchIndex, SearchResult } from '../../ports/search-index.ts';
import { decodedItems } from './item-decoder.ts';
import { linkFromItem } from './link-mapper.ts';
import { paymentFromItem } from './payment-mapper.ts';
import { type ItemKey, itemsByKey } from './query.ts';
import { refundEntryFromItem } from './refund-mapper.ts';
import { headOf, type Searchable } from './search-keys.ts';
import {
  bookKeys,
  bookPosition,
  keys,
  paymentKeys,
  SEARCH_SHARDS,
  searchKeys,
  shardOf,
} from './table-schema.ts';

/** The partitions and sort key condition of one term: an id's one shard, any other term's every shard. */
function termQueries(
  account: string,
  mode: Mode,
  term: SearchTerm,
  limit: number,
): Omit<QueryCommandInput, 'TableName'>[] {
  const head = headOf(term);
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
