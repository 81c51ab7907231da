import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type BooksFilter, passes, type RefundEntry } from '../../domain/books.ts';
import type { Payment } from '../../domain/payment.ts';
import type { Books, BooksPage, BooksQuery } from '../../ports/books.ts';
import { decodedItems } from './item-decoder.ts';
import { type MergedRead, mergedEntries } from './merged-partitions.ts';
import { paymentFromItem } from './payment-mapper.ts';
import { allItems, itemsOfIndexEntries } from './query.ts';
import { refundEntryFromItem } from './refund-mapper.ts';
import {
  bookKeys,
  bookPosition,
  currentIndexNames,
  type IndexNames,
  merchantShards,
  paymentKeys,
  tableSchema,
} from './table-schema.ts';

/**
 * How much a filtered page reads: rounds of `roundSize` index entries when a filter may discard most of them,
 * at most `maxRounds` (1,000 entries), after which it returns what it found with a cursor past the last entry
 * evaluated. No filter reads unboundedly many items for one page.
 */
export interface ReadBudget {
  roundSize: number;
  maxRounds: number;
}

const READ_BUDGET: ReadBudget = { roundSize: 100, maxRounds: 10 };

/** How one kind of entry (payments, refunds) is found: its partitions and how an item reads. */
interface Ledger<T> {
  listing: (account: string, mode: string) => string;
  byReference: (account: string, mode: string, reference: string) => string;
  ofLink: (linkId: string, mode: string) => { pk: string; skPrefix: string };
  read: (item: Record<string, unknown>) => T;
  linkOf: (entry: T) => string;
}

// Functions, not objects: a bundle that never reads the books drops them and the mappers they name (an object
// at the top level that reads `bookKeys.payments` would be kept, as reading a property may have side effects).
const payments = (): Ledger<Payment> => ({
  listing: bookKeys.payments,
  byReference: bookKeys.paymentsByReference,
  ofLink: paymentKeys.ofLink,
  read: paymentFromItem,
  linkOf: (payment) => payment.link_id,
});

const refunds = (): Ledger<RefundEntry> => ({
  listing: bookKeys.refunds,
  byReference: bookKeys.refundsByReference,
  ofLink: bookKeys.refundsOfLink,
  read: refundEntryFromItem,
  linkOf: (refund) => refund.payment_link_id,
});

type Entry = { id: string; created_at: string; account: string } & Parameters<typeof passes>[0];

/**
 * The books in DynamoDB (docs/data-model.md#books). Which partitions a query reads follows its most selective
 * filter, each a key condition: `link_id` reads the link's own partition (its payments, or its refund entries,
 * at most `MAX_REFUNDS_PER_LINK`); `client_reference_id` the reference's partitions in gsi2; otherwise the
 * (account, mode)'s listing in gsi1. `created[gte]` and `created[lt]` bound the sort key. `status` and
 * `connection_id` filter what is read, within a budget of rounds per page.
 */
export class DynamoBooks implements Books {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly listingsIndex: string;
  private readonly budget: ReadBudget;

  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    indexes: IndexNames = currentIndexNames,
    budget: ReadBudget = READ_BUDGET,
  ) {
    this.client = client;
    this.tableName = tableName;
    this.listingsIndex = indexes.listings;
    this.budget = budget;
  }

  payments(query: BooksQuery): Promise<BooksPage<Payment>> {
    return this.page(payments(), query);
  }

  refunds(query: BooksQuery): Promise<BooksPage<RefundEntry>> {
    return this.page(refunds(), query);
  }

  private async page<T extends Entry>(ledger: Ledger<T>, query: BooksQuery): Promise<BooksPage<T>> {
    const keep = (entry: T) =>
      entry.account === query.account && passes(entry, ledger.linkOf(entry), query as BooksFilter);
    if (query.linkId !== undefined) return this.pageOfLink(ledger, query, keep);
    const filtered = query.status !== undefined || query.connectionId !== undefined;
    const found: T[] = [];
    const batch = () => (filtered ? this.budget.roundSize : query.limit + 1 - found.length);
    const read = this.read(ledger, query);
    let rounds = 0;
    for await (const entries of mergedEntries(this.client, read, batch)) {
      const items = await itemsOfIndexEntries(this.client, this.tableName, entries);
      found.push(...decodedItems(items, ledger.read).filter(keep));
      if (found.length > query.limit) {
        const shown = found.slice(0, query.limit);
        return { entries: shown, next: bookPosition(shown.at(-1) as T) };
      }
      if (++rounds === this.budget.maxRounds && entries.length) {
        // The budget is spent on a sparse filter: continue after the last entry evaluated, not the last found.
        return { entries: found, next: String(entries.at(-1)?.[read.sortKey]) };
      }
    }
    return { entries: found, next: undefined };
  }

  /** The partitions a query reads, merged newest first between its bounds. */
  private read<T>(ledger: Ledger<T>, query: BooksQuery): MergedRead {
    const byReference = query.clientReferenceId !== undefined;
    const index = byReference ? tableSchema.gsi2 : tableSchema.gsi1;
    const base = byReference
      ? ledger.byReference(query.account, query.mode, query.clientReferenceId as string)
      : ledger.listing(query.account, query.mode);
    const after = [query.after, query.createdLt].filter((bound) => bound !== undefined).sort()[0];
    return {
      tableName: this.tableName,
      indexName: byReference ? index.indexName : this.listingsIndex,
      partitionKey: index.partitionKey,
      sortKey: index.sortKey,
      partitions: merchantShards(base),
      descending: true,
      after,
      until: query.createdGte,
    };
  }

  /**
   * One link's entries: its own partition, read whole (a link's payments are its attempts, its refunds at most
   * `MAX_REFUNDS_PER_LINK`), sorted and paged here.
   */
  private async pageOfLink<T extends Entry>(
    ledger: Ledger<T>,
    query: BooksQuery,
    keep: (entry: T) => boolean,
  ): Promise<BooksPage<T>> {
    const { pk, skPrefix } = ledger.ofLink(query.linkId as string, query.mode);
    const items = await allItems(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
    });
    const entries = decodedItems(items, ledger.read)
      .filter(keep)
      .filter((entry) => query.after === undefined || bookPosition(entry) < query.after)
      .sort((a, b) => bookPosition(b).localeCompare(bookPosition(a)));
    const shown = entries.slice(0, query.limit);
    return {
      entries: shown,
      next: entries.length > query.limit ? bookPosition(shown.at(-1) as T) : undefined,
    };
  }
}
