import type { Mode } from '../../domain/principal.ts';
import type { StoredEvent } from '../../domain/webhook.ts';
import type { FeedQuery } from '../../ports/event-repository.ts';
import { eventFromItem } from './event-mapper.ts';
import { decodedItems } from './item-decoder.ts';
import { mergedEntries } from './merged-partitions.ts';
import { itemsOfIndexEntries, type TableIndexRef } from './query.ts';
import { keys, merchantPartitions, tableSchema } from './table-schema.ts';

/** A page of an account's events, and the feed position the next one starts after. */
export interface FeedPage {
  events: StoredEvent[];
  next: string | undefined;
}

type IndexEntry = Record<string, unknown>;

/** Rounds a filtered feed page reads at most before it answers with what it found. */
const FEED_PAGES = 10;
/** Entries a filtered feed page reads per round. */
const FILTERED_BATCH = 100;

/**
 * The account's events in the timelines index, newest first, between `query.from` and the cursor `query.before`,
 * filtered by type and link. The index lists which events (and holds the filters' attributes); the events are
 * then read by key. One account's feed is spread over several partitions (`merchantPartitions`), merged here.
 */
export async function eventFeed(
  timelines: TableIndexRef,
  account: string,
  mode: Mode,
  query: FeedQuery,
): Promise<FeedPage> {
  if (query.before !== undefined && query.before <= query.from) return { events: [], next: undefined };
  const matches = (entry: IndexEntry) =>
    (!query.type || entry.type === query.type) && (!query.linkId || entry.link_id === query.linkId);
  const filtered = Boolean(query.type || query.linkId);
  const entries: IndexEntry[] = [];
  const batch = () => (filtered ? FILTERED_BATCH : query.limit + 1 - entries.length);
  const read = {
    ...feedRead(timelines, account, mode),
    descending: true,
    after: query.before,
    until: query.from,
  };
  let rounds = 0;
  for await (const round of mergedEntries(timelines.client, read, batch)) {
    entries.push(...round.filter(matches));
    if (entries.length > query.limit) {
      const shown = entries.slice(0, query.limit);
      return { events: await eventsOf(timelines, shown), next: String(shown.at(-1)?.gsi3sk) };
    }
    // Sparse matches: answer what was found, continuing after the last entry read.
    if (++rounds === FEED_PAGES && round.length) {
      return { events: await eventsOf(timelines, entries), next: String(round.at(-1)?.gsi3sk) };
    }
  }
  return { events: await eventsOf(timelines, entries), next: undefined };
}

/** The feed's partitions in the timelines index. */
function feedRead({ tableName, indexName }: TableIndexRef, account: string, mode: Mode) {
  return {
    tableName,
    indexName,
    partitionKey: tableSchema.gsi3.partitionKey,
    sortKey: tableSchema.gsi3.sortKey,
    partitions: merchantPartitions(keys.eventFeed(account, mode)),
  };
}

/** The account's events created at or after `from`, oldest first, after the feed position `after`. */
export async function eventFeedSince(
  timelines: TableIndexRef,
  account: string,
  mode: Mode,
  page: { from: string; after: string | undefined; limit: number },
): Promise<FeedPage> {
  // Every position at `from` or later sorts after `from` itself (positions continue with `#<id>`).
  const read = { ...feedRead(timelines, account, mode), descending: false, after: page.after ?? page.from };
  const rounds = mergedEntries(timelines.client, read, () => page.limit + 1);
  const first = await rounds.next();
  await rounds.return(undefined);
  const entries = first.done ? [] : first.value;
  const shown = entries.slice(0, page.limit);
  return {
    events: await eventsOf(timelines, shown),
    next: entries.length > page.limit ? String(shown.at(-1)?.gsi3sk) : undefined,
  };
}

/** The events a Query of the feed listed, read from the table, in the same order. */
async function eventsOf({ client, tableName }: TableIndexRef, entries: readonly IndexEntry[]) {
  return decodedItems(await itemsOfIndexEntries(client, tableName, entries), eventFromItem);
}
