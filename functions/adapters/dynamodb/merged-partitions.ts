import { type DynamoDBDocumentClient, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';

type IndexEntry = Record<string, unknown>;

/** Several partitions of one index read as one list in sort-key order (a merchant-split listing or feed). */
export interface MergedRead {
  tableName: string;
  indexName: string;
  partitionKey: string;
  sortKey: string;
  partitions: readonly string[];
  /** Newest (greatest sort key) first, or oldest first. */
  descending: boolean;
  /** Where the read starts, excluded: entries past it in the read's order (a page cursor's position). */
  after?: string | undefined;
  /** Where it ends, included: the least sort key read newest first, or the greatest oldest first. */
  until?: string | undefined;
}

/** Bounds that sort before and after every position (`<ISO 8601 time>#<id>`). */
const LOWEST = ' ';
const HIGHEST = '~';

/**
 * The list's entries in order, a round at a time: each round asks every partition, in parallel, for `batch`
 * entries past the position, and yields those of the merge that no partition can still precede (up to the
 * first partition's last entry read, when more follow in it), at most `batch` of them; the next round starts
 * after the last one yielded. Reads end when every partition is read through or the caller stops.
 */
export async function* mergedEntries(
  client: DynamoDBDocumentClient,
  read: MergedRead,
  batch: () => number,
): AsyncGenerator<IndexEntry[]> {
  const sortOf = (entry: IndexEntry) => String(entry[read.sortKey]);
  const before = (a: string, b: string) => (read.descending ? a > b : a < b);
  let position = read.after;
  for (;;) {
    const limit = batch();
    const pages = await Promise.all(read.partitions.map((pk) => onePage(client, read, pk, position, limit)));
    const merged = pages
      .flatMap((page) => (page.Items ?? []).filter((entry) => sortOf(entry) !== position))
      .sort((a, b) => (before(sortOf(a), sortOf(b)) ? -1 : 1));
    const unfinished = pages.filter((page) => page.LastEvaluatedKey && page.Items?.length);
    // An unfinished partition may hold entries before anything past its last one read: stop at the first.
    const boundary = unfinished
      .map((page) => sortOf(page.Items?.at(-1) as IndexEntry))
      .sort((a, b) => (before(a, b) ? -1 : 1))[0];
    const complete = boundary ? merged.filter((entry) => !before(boundary, sortOf(entry))) : merged;
    const taken = complete.slice(0, limit);
    yield taken;
    const last = taken.at(-1);
    if (!last || (!unfinished.length && taken.length === complete.length)) return;
    position = sortOf(last);
  }
}

function onePage(
  client: DynamoDBDocumentClient,
  read: MergedRead,
  partition: string,
  position: string | undefined,
  limit: number,
): Promise<QueryCommandOutput> {
  // BETWEEN includes both ends; the position itself, already shown, is dropped from the answer.
  const [low, high] = read.descending
    ? [read.until ?? LOWEST, position ?? HIGHEST]
    : [position ?? LOWEST, read.until ?? HIGHEST];
  return client.send(
    new QueryCommand({
      TableName: read.tableName,
      IndexName: read.indexName,
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :low AND :high',
      ExpressionAttributeNames: { '#pk': read.partitionKey, '#sk': read.sortKey },
      ExpressionAttributeValues: { ':pk': partition, ':low': low, ':high': high },
      ScanIndexForward: !read.descending,
      // One more than asked: the position itself may be among them.
      Limit: limit + 1,
    }),
  );
}
