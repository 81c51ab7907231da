import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Mode } from '../../domain/principal.ts';
import type { StoredEvent } from '../../domain/webhook.ts';
import type { FeedQuery } from '../../ports/event-repository.ts';
import { toStoredEvent } from './event-items.ts';
import { itemsOfIndexEntries, type TableIndexRef } from './query.ts';
import { keys } from './table-schema.ts';

/** A page of an account's events, and the feed position the next one starts after. */
export interface FeedPage {
  events: StoredEvent[];
  next: string | undefined;
}

type IndexEntry = Record<string, unknown>;

/** Index pages a filtered feed page reads at most before it answers with what it found. */
const FEED_PAGES = 10;

/**
 * The account's events in the timelines index, newest first, between `query.from` and the cursor `query.before`,
 * filtered by type and link. The index lists which events (and holds the filters' attributes); the events are
 * then read by key.
 */
export async function eventFeed(
  timelines: TableIndexRef,
  account: string,
  mode: Mode,
  query: FeedQuery,
): Promise<FeedPage> {
  if (query.before !== undefined && query.before <= query.from) return { events: [], next: undefined };
  const { entries, next } = await feedEntries(
    timelines,
    feedQueryInput(timelines, account, mode, query),
    query,
  );
  return { events: await eventsOf(timelines, entries), next };
}

/** The Query of the feed's newest-first index entries, with the filters the feed query asks for. */
function feedQueryInput(
  { tableName, indexName }: TableIndexRef,
  account: string,
  mode: Mode,
  query: FeedQuery,
): QueryCommandInput {
  const filters: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {
    ':pk': keys.eventFeed(account, mode),
    ':from': query.from,
    ':before': query.before ?? '~',
  };
  if (query.type) {
    filters.push('#type = :type');
    names['#type'] = 'type';
    values[':type'] = query.type;
  }
  if (query.linkId) {
    filters.push('link_id = :link');
    values[':link'] = query.linkId;
  }
  return {
    TableName: tableName,
    IndexName: indexName,
    KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk BETWEEN :from AND :before',
    ...(filters.length && { FilterExpression: filters.join(' AND ') }),
    ...(Object.keys(names).length && { ExpressionAttributeNames: names }),
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
}

/**
 * Up to `query.limit` entries of the index, and the position after the last one shown when more follow. A
 * filtered Query may match little per page: after `FEED_PAGES` pages it answers what it found.
 */
async function feedEntries(
  { client }: TableIndexRef,
  input: QueryCommandInput,
  query: FeedQuery,
): Promise<{ entries: IndexEntry[]; next: string | undefined }> {
  const entries: IndexEntry[] = [];
  let startKey: IndexEntry | undefined;
  for (let page = 0; page < FEED_PAGES; page++) {
    const result = await client.send(
      new QueryCommand({
        ...input,
        Limit: input.FilterExpression ? 100 : query.limit - entries.length + 1,
        ExclusiveStartKey: startKey,
      }),
    );
    // BETWEEN is inclusive; the cursor's own event was shown.
    entries.push(...(result.Items ?? []).filter((entry) => entry.gsi3sk !== query.before));
    if (entries.length > query.limit) {
      const shown = entries.slice(0, query.limit);
      return { entries: shown, next: String(shown.at(-1)?.gsi3sk) };
    }
    startKey = result.LastEvaluatedKey;
    if (!startKey) return { entries, next: undefined };
  }
  // Sparse matches: answer what was found, continuing after the last item read.
  return { entries, next: startKey ? String(startKey.gsi3sk) : undefined };
}

/** The account's events created at or after `from`, oldest first, after the feed position `after`. */
export async function eventFeedSince(
  timelines: TableIndexRef,
  account: string,
  mode: Mode,
  page: { from: string; after: string | undefined; limit: number },
): Promise<FeedPage> {
  const result = await timelines.client.send(
    new QueryCommand({
      TableName: timelines.tableName,
      IndexName: timelines.indexName,
      KeyConditionExpression: 'gsi3pk = :pk AND gsi3sk > :after',
      ExpressionAttributeValues: {
        ':pk': keys.eventFeed(account, mode),
        // Every position at `from` or later sorts after `from` itself (positions continue with `#<id>`).
        ':after': page.after ?? page.from,
      },
      Limit: page.limit,
    }),
  );
  const entries = result.Items ?? [];
  const last = entries.at(-1);
  return {
    events: await eventsOf(timelines, entries),
    next: result.LastEvaluatedKey && last ? String(last.gsi3sk) : undefined,
  };
}

/** The events a Query of the feed listed, read from the table, in the same order. */
async function eventsOf({ client, tableName }: TableIndexRef, entries: readonly IndexEntry[]) {
  return (await itemsOfIndexEntries(client, tableName, entries)).map(toStoredEvent);
}
