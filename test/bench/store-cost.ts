/**
 * Counts what DynamoDB would bill for the commands a process sends, as the on-demand price list counts it
 * (docs/performance.md#cost-per-million-links): write request units per item written, in the table and in every
 * index whose copy of the item changes, read request units per 4 KB read, and the bytes each item and each
 * index copy stores. The embedded store (dynalite) reports neither index writes nor index storage, so this works
 * them out from the item before and after each write, read with a client of its own.
 */
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  type GetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';

type Item = Record<string, AttributeValue>;

/** DynamoDB's item size: each attribute's UTF-8 name plus its value (docs: "Item sizes and formats"). */
export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value),
    0,
  );
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS) return value.BS.reduce((sum, b) => sum + b.length, 0);
  if (value.L) return 3 + value.L.reduce((sum, element) => sum + 1 + valueSize(element), 0);
  if (value.M) {
    return (
      3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0)
    );
  }
  return 0;
}

/** About one byte per two significant digits, plus one. */
function numberSize(n: string): number {
  const digits =
    n
      .replace(/^-/, '')
      .replace(/[.eE].*$/, '')
      .replace(/^0+/, '').length || 1;
  return Math.ceil(digits / 2) + 1;
}

/** How an index copies an item: every attribute (ALL), or its keys and the named ones (INCLUDE / KEYS_ONLY). */
export type Projection = { type: 'ALL' } | { type: 'INCLUDE' | 'KEYS_ONLY'; attributes?: readonly string[] };

export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  projection: Projection;
}

const tableKeys = [tableSchema.partitionKey, tableSchema.sortKey];

function indexCopy(item: Item | undefined, index: IndexDefinition): Item | undefined {
  if (!item?.[index.partitionKey] || !item[index.sortKey]) return undefined;
  if (index.projection.type === 'ALL') return item;
  const kept = new Set([
    ...tableKeys,
    index.partitionKey,
    index.sortKey,
    ...(index.projection.attributes ?? []),
  ]);
  return Object.fromEntries(Object.entries(item).filter(([name]) => kept.has(name)));
}

const KB = 1024;
const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));

/** Units one call spent in one partition: of the table (`target` 'table') or of an index, by partition key. */
export interface PartitionUnits {
  target: string;
  key: string;
  wru: number;
  rru: number;
}

const partitionKeyOf = (item: Item | undefined, attribute: string) => String(item?.[attribute]?.S ?? '?');

/** Write units of one item's change in the table and its indexes, in total and by partition. */
function writeUnits(before: Item | undefined, after: Item | undefined, indexes: readonly IndexDefinition[]) {
  const table = units(Math.max(itemSize(before), itemSize(after)), KB);
  const byIndex: Record<string, number> = {};
  const partitions: PartitionUnits[] = [
    { target: 'table', key: partitionKeyOf(after ?? before, tableSchema.partitionKey), wru: table, rru: 0 },
  ];
  for (const index of indexes) {
    const old = indexCopy(before, index);
    const now = indexCopy(after, index);
    if (!old && !now) continue;
    const sameKey =
      old &&
      now &&
      old[index.partitionKey]?.S === now[index.partitionKey]?.S &&
      old[index.sortKey]?.S === now[index.sortKey]?.S;
    // An unchanged copy costs nothing; a moved key is a delete and a put; otherwise one write of the copy.
    if (old && now && sameKey && JSON.stringify(old) === JSON.stringify(now)) continue;
    const moved = old && now && !sameKey;
    const cost = moved
      ? units(itemSize(old), KB) + units(itemSize(now), KB)
      : units(Math.max(itemSize(old), itemSize(now)), KB);
    byIndex[index.indexName] = (byIndex[index.indexName] ?? 0) + cost;
    const copies = moved ? [old, now] : [now ?? old];
    for (const copy of copies) {
      const wru = moved ? units(itemSize(copy), KB) : cost;
      partitions.push({
        target: index.indexName,
        key: partitionKeyOf(copy, index.partitionKey),
        wru,
        rru: 0,
      });
    }
  }
  return { table, byIndex, partitions };
}

export interface StoreCall {
  /** The command, e.g. PutItem, and the kind of item it touched (the partition key's prefix). */
  command: string;
  items: string[];
  wru: number;
  /** Of `wru`, the units written to each index. */
  indexWru: Record<string, number>;
  rru: number;
  /** Bytes of each item written, as stored after the write (0 for a delete). */
  itemBytes: number[];
  failed?: boolean;
  /** The index a Query or Scan read, if any. */
  indexName?: string;
  /** The same units, by the partition (of the table or an index) they fell on: docs/scaling.md's heat. */
  partitions: PartitionUnits[];
}

const kindOf = (key: Item | undefined) => String(key?.pk?.S ?? '?').split('#')[0] as string;

/**
 * Installs the counter on `client` (the stack's shared document client: its commands reach the table already
 * marshalled at the serialize step) until `stop()`. Reads the items a write touches with a client of its own.
 */
export function recordStoreCost(client: DynamoDBDocumentClient, indexes: readonly IndexDefinition[]) {
  const reader = new DynamoDBClient({});
  const calls: StoreCall[] = [];
  /** Every item written, by table and key. */
  const written = new Map<string, { TableName: string; Key: Item }>();
  const read = async (TableName: string, Key: Item) =>
    (
      (await reader.send(
        new GetItemCommand({ TableName, Key, ConsistentRead: true }),
      )) as GetItemCommandOutput
    ).Item;
  // Keys and items may arrive marshalled or not, depending on where the document client's marshalling ran.
  const keyOf = (item: unknown): Item => {
    const marshalled = asItem(item) as Item;
    return { pk: marshalled.pk as AttributeValue, sk: marshalled.sk as AttributeValue };
  };

  type Write = { TableName: string; Key: Item; kind: 'put' | 'update' | 'delete' | 'check' };
  const writesOf = (command: string, input: Record<string, unknown>): Write[] => {
    const TableName = input.TableName as string;
    if (command === 'PutItemCommand') return [{ TableName, Key: keyOf(input.Item), kind: 'put' }];
    if (command === 'UpdateItemCommand') return [{ TableName, Key: keyOf(input.Key), kind: 'update' }];
    if (command === 'DeleteItemCommand') return [{ TableName, Key: keyOf(input.Key), kind: 'delete' }];
    if (command === 'TransactWriteItemsCommand') {
      return (input.TransactItems as Record<string, Record<string, unknown>>[]).map((entry) => {
        const [kind, op] = Object.entries(entry)[0] as [string, Record<string, unknown>];
        const Key = keyOf(kind === 'Put' ? op.Item : op.Key);
        const map = { Put: 'put', Update: 'update', Delete: 'delete', ConditionCheck: 'check' } as const;
        return { TableName: op.TableName as string, Key, kind: map[kind as keyof typeof map] };
      });
    }
    if (command === 'BatchWriteItemCommand') {
      return Object.entries(
        input.RequestItems as Record<string, Record<string, Record<string, unknown>>[]>,
      ).flatMap(([TableName, requests]) =>
        requests.map((request) =>
          request.PutRequest
            ? { TableName, Key: keyOf(request.PutRequest.Item), kind: 'put' as const }
            : { TableName, Key: keyOf(request.DeleteRequest?.Key), kind: 'delete' as const },
        ),
      );
    }
    return [];
  };

  const middleware =
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's middleware types are generic over every command
    (next: any, context: any) => async (args: any) => {
      const command = String(context.commandName);
      const input = args.input as Record<string, unknown>;
      const writes = writesOf(command, input);
      for (const { TableName, Key } of writes)
        written.set(JSON.stringify([TableName, Key]), { TableName, Key });
      const before = await Promise.all(writes.map((write) => read(write.TableName, write.Key)));
      let output: { output: Record<string, unknown> } | undefined;
      let failed = false;
      try {
        output = await next(args);
        return output;
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        const transactional = command.startsWith('Transact') ? 2 : 1;
        if (writes.length) {
          const after = await Promise.all(writes.map((write) => read(write.TableName, write.Key)));
          let wru = 0;
          const indexWru: Record<string, number> = {};
          const partitions: PartitionUnits[] = [];
          writes.forEach((write, i) => {
            if (write.kind === 'check') {
              const checked = units(itemSize(before[i]), KB) * transactional;
              wru += checked;
              partitions.push({ target: 'table', key: String(write.Key.pk?.S), wru: checked, rru: 0 });
              return;
            }
            // A refused conditional write still costs the table's units; no index copy changes.
            const cost = writeUnits(before[i], failed ? before[i] : after[i], failed ? [] : indexes);
            for (const part of cost.partitions) partitions.push({ ...part, wru: part.wru * transactional });
            wru += cost.table * transactional;
            for (const [name, n] of Object.entries(cost.byIndex)) {
              indexWru[name] = (indexWru[name] ?? 0) + n * transactional;
              wru += n * transactional;
            }
          });
          calls.push({
            command: command.replace(/Command$/, ''),
            items: writes.map((write) => kindOf(write.Key)),
            wru,
            indexWru,
            rru: 0,
            itemBytes: after.map((item) => itemSize(item)),
            ...(failed && { failed }),
            partitions,
          });
        } else if (output) {
          calls.push(readCall(command, input, output.output));
        }
      }
    };

  client.middlewareStack.add(middleware as never, {
    step: 'serialize',
    name: 'storeCostRecorder',
    priority: 'high',
  });
  return {
    calls,
    written,
    /** Bytes one item stores in the table and in each index that holds a copy of it. */
    async stored(TableName: string, Key: Item) {
      const item = await read(TableName, Key);
      return {
        table: itemSize(item),
        indexes: Object.fromEntries(
          indexes.map((index) => [index.indexName, itemSize(indexCopy(item, index))]),
        ),
      };
    },
    /** Stops counting; `stored` still reads. */
    stop() {
      client.middlewareStack.remove('storeCostRecorder');
    },
  };
}

const ATTRIBUTE_TYPES = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/** An item as DynamoDB stores it, whether the output was unmarshalled (the document client) or not. */
function asItem(item: unknown): Item | undefined {
  if (!item || typeof item !== 'object') return undefined;
  const marshalled = Object.values(item).every(
    (value) =>
      value &&
      typeof value === 'object' &&
      Object.keys(value).length === 1 &&
      ATTRIBUTE_TYPES.has(Object.keys(value)[0] as string),
  );
  return marshalled
    ? (item as Item)
    : marshall(item as Record<string, unknown>, {
        removeUndefinedValues: true,
        convertClassInstanceToMap: true,
      });
}

function readCall(
  command: string,
  input: Record<string, unknown>,
  output: Record<string, unknown>,
): StoreCall {
  const consistent = input.ConsistentRead === true;
  const factor = (strong: boolean) => (strong ? 1 : 0.5);
  let rru = 0;
  let items: string[] = [];
  let partitions: PartitionUnits[] = [];
  if (command === 'GetItemCommand') {
    rru = units(itemSize(asItem(output.Item)), 4 * KB) * factor(consistent);
    items = [kindOf(asItem(input.Key))];
    partitions = [{ target: 'table', key: String(asItem(input.Key)?.pk?.S), wru: 0, rru }];
  } else if (command === 'QueryCommand' || command === 'ScanCommand') {
    const found = ((output.Items as unknown[] | undefined) ?? []).map((item) => asItem(item) as Item);
    rru =
      units(
        found.reduce((sum, item) => sum + itemSize(item), 0),
        4 * KB,
      ) * factor(consistent);
    items = [...new Set(found.map(kindOf))];
    partitions = [{ target: String(input.IndexName ?? 'table'), key: queriedPartition(input), wru: 0, rru }];
  } else if (command === 'BatchGetItemCommand') {
    const responses = Object.values((output.Responses as Record<string, unknown[]>) ?? {})
      .flat()
      .map((item) => asItem(item) as Item);
    const strong = Object.values(input.RequestItems as Record<string, { ConsistentRead?: boolean }>).some(
      (request) => request.ConsistentRead,
    );
    rru = responses.reduce((sum, item) => sum + units(itemSize(item), 4 * KB) * factor(strong), 0);
    items = [...new Set(responses.map(kindOf))];
    partitions = responses.map((item) =>
      tablePartition(item, units(itemSize(item), 4 * KB) * factor(strong)),
    );
  } else if (command === 'TransactGetItemsCommand') {
    const responses = ((output.Responses as { Item?: unknown }[]) ?? []).map((response) =>
      asItem(response.Item),
    );
    rru = responses.reduce((sum, item) => sum + units(itemSize(item), 4 * KB) * 2, 0);
    items = responses.map(kindOf);
    partitions = responses.map((item) => tablePartition(item, units(itemSize(item), 4 * KB) * 2));
  }
  return {
    command: command.replace(/Command$/, ''),
    items,
    wru: 0,
    indexWru: {},
    rru,
    itemBytes: [],
    ...(typeof input.IndexName === 'string' && { indexName: input.IndexName }),
    partitions,
  };
}

const tablePartition = (item: Item | undefined, rru: number): PartitionUnits => ({
  target: 'table',
  key: partitionKeyOf(item, tableSchema.partitionKey),
  wru: 0,
  rru,
});

/** The partition key value a Query names: the value its key condition compares the first attribute to. */
function queriedPartition(input: Record<string, unknown>): string {
  const placeholder = /^\s*#?\w+\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression ?? ''))?.[1];
  const value = placeholder
    ? (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[placeholder]
    : undefined;
  if (typeof value === 'string') return value;
  return String((value as AttributeValue | undefined)?.S ?? '?');
}
