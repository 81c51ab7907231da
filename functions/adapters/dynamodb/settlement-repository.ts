import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { isId } from '../../domain/ids.ts';
import type { Mode, Principal } from '../../domain/principal.ts';
import type { Settlement, SettlementItem } from '../../domain/settlement.ts';
import type {
  PayoutReading,
  ReferencedPayment,
  SettlementRepository,
  SettlementsPage,
  SettlementsRequest,
} from '../../ports/settlements.ts';
import { decodedItems } from './item-decoder.ts';
import { allItems, dueInSweeperIndex, itemsByKey, itemsOfIndexEntries, type TableIndexRef } from './query.ts';
import { settlementKeys } from './settlement-keys.ts';
import {
  payoutReadingFromItem,
  payoutReadingToItem,
  referencedPaymentFromItem,
  settlementFromItem,
  settlementItemFromItem,
  settlementItemToItem,
  settlementToItem,
} from './settlement-mapper.ts';
import { currentIndexNames, type IndexNames } from './table-schema.ts';

/** Index entries a listing reads per round, and rounds per page at most (a connection filter reads no more). */
const ROUND = 100;
const MAX_ROUNDS = 10;
/** Items written in parallel. */
const WRITES_AT_ONCE = 25;

const dayStart = (day: string) => `${day}T00:00:00.000Z`;

export class DynamoSettlementRepository implements SettlementRepository {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly listings: string;
  private readonly timelines: TableIndexRef;

  constructor(client: DynamoDBDocumentClient, tableName: string, indexes: IndexNames = currentIndexNames) {
    this.client = client;
    this.tableName = tableName;
    this.listings = indexes.listings;
    this.timelines = { client, tableName, indexName: indexes.timelines };
  }

  async save(settlement: Settlement, items: readonly SettlementItem[]): Promise<void> {
    const { pk, skPrefix } = settlementKeys.ofSettlement(settlement.id, settlement.mode);
    const stored = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    const writes = items.map(
      (item, index) => () =>
        this.client.send(
          new PutCommand({ TableName: this.tableName, Item: settlementItemToItem(settlement, item, index) }),
        ),
    );
    // Lines a previous read stored past this read's last (a PSP that changed what the payout holds).
    const written = new Set(
      items.map((_, index) => settlementKeys.item(settlement.id, settlement.mode, index).sk),
    );
    const removals = stored
      .filter((item) => !written.has(String(item.sk)))
      .map(
        (item) => () =>
          this.client.send(
            new DeleteCommand({ TableName: this.tableName, Key: { pk: item.pk, sk: item.sk } }),
          ),
      );
    const all = [...writes, ...removals];
    for (let start = 0; start < all.length; start += WRITES_AT_ONCE) {
      await Promise.all(all.slice(start, start + WRITES_AT_ONCE).map((write) => write()));
    }
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: settlementToItem(settlement) }));
  }

  async get(principal: Principal, id: string) {
    if (!isId('stl', id)) return undefined;
    const { pk } = settlementKeys.settlement(id, principal.mode);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': `MODE#${principal.mode}` },
      ConsistentRead: true,
    });
    const header = items.find((item) => item.sk === `MODE#${principal.mode}`);
    if (!header) return undefined;
    const settlement = settlementFromItem(header);
    if (settlement.account !== principal.account) return undefined;
    const lines = decodedItems(
      items.filter((item) => item !== header),
      settlementItemFromItem,
    );
    return { settlement, items: lines };
  }

  /**
   * Newest arrival first: the listing's Query below the cursor (or the end of the period), at most
   * `MAX_ROUNDS` rounds of `ROUND` entries, the entries read by key and kept when they pass the filter.
   */
  async list(principal: Principal, request: SettlementsRequest): Promise<SettlementsPage> {
    const { condition, values, upper } = listingRange(request);
    const entries: Settlement[] = [];
    let startKey: Record<string, unknown> | undefined;
    let last: string | undefined;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: this.listings,
          KeyConditionExpression: condition,
          ExpressionAttributeValues: {
            ':pk': settlementKeys.listing(principal.account, principal.mode),
            ...values,
          },
          ScanIndexForward: false,
          Limit: ROUND,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      const found = decodedItems(
        await itemsOfIndexEntries(this.client, this.tableName, page.Items ?? []),
        settlementFromItem,
      );
      // The entry at the cursor itself (BETWEEN includes its upper bound) is not read again.
      for (const settlement of found.filter((entry) => sortPosition(entry) !== upper)) {
        last = sortPosition(settlement);
        if (request.connectionId && settlement.connection_id !== request.connectionId) continue;
        entries.push(settlement);
        if (entries.length === request.limit) return { entries, next: last };
      }
      startKey = page.LastEvaluatedKey;
      if (!startKey) return { entries, next: undefined };
    }
    return { entries, next: last };
  }

  async stored(id: string, mode: Mode): Promise<Settlement | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: settlementKeys.settlement(id, mode),
        ConsistentRead: true,
      }),
    );
    return Item ? settlementFromItem(Item) : undefined;
  }

  async paymentByReference(connectionId: string, reference: string): Promise<ReferencedPayment | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: settlementKeys.paymentByReference(connectionId, reference),
      }),
    );
    return Item ? referencedPaymentFromItem(Item) : undefined;
  }

  async dueReadings(now: Date, limit: number): Promise<PayoutReading[]> {
    const due = await dueInSweeperIndex(this.timelines, settlementKeys.readingShard, now, limit, ['id']);
    const items = await itemsByKey(
      this.client,
      this.tableName,
      due.map((entry) => settlementKeys.reading(String(entry.id))),
    );
    return decodedItems(items, payoutReadingFromItem);
  }

  async saveReading(reading: PayoutReading): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: payoutReadingToItem(reading) }));
  }
}

const sortPosition = (settlement: Settlement) => settlementToItem(settlement).gsi1sk;

/** The listing's sort-key range of a request: below its cursor or its period's end, from its period's start. */
function listingRange(request: SettlementsRequest) {
  const upper = [request.after, request.arrivalLt && dayStart(request.arrivalLt)]
    .filter((bound): bound is string => typeof bound === 'string')
    .sort()[0];
  const lower = request.arrivalGte ? dayStart(request.arrivalGte) : undefined;
  const values = { ...(upper ? { ':upper': upper } : {}), ...(lower ? { ':lower': lower } : {}) };
  if (upper && lower)
    return { condition: 'gsi1pk = :pk AND gsi1sk BETWEEN :lower AND :upper', values, upper };
  if (upper) return { condition: 'gsi1pk = :pk AND gsi1sk < :upper', values, upper };
  if (lower) return { condition: 'gsi1pk = :pk AND gsi1sk >= :lower', values, upper };
  return { condition: 'gsi1pk = :pk', values, upper };
}
