import { isTimeOrderedId, timeOrderedIdFloor } from '../../domain/ids.ts';

/**
 * The single table's key schema, shared by the adapters, the CDK table construct and the local stack so the
 * three cannot drift. The main access patterns (docs/data-model.md has the full list, and the key groups
 * below each say what their records are):
 *
 * | item            | pk                     | sk                  | gsi1pk                          | gsi1sk            |
 * |-----------------|------------------------|---------------------|---------------------------------|-------------------|
 * | payment link    | LINK#<id>              | MODE#<mode>         | LINKS#<acc>#<mode>#<shard>      | <created_at>#<id> |
 * | event           | EVENT#<id>             | MODE#<mode>         | –                               | –                 |
 * | API key         | APIKEY#<key id>        | APIKEY              | ACCOUNT#<acc>#APIKEYS           | <created_at>      |
 * | signing secret  | SIGNING_SECRET#<acc>   | MODE#<mode>         | –                               | –                 |
 * | idempotency     | IDEMPOTENCY#<acc>#<mode>#<key hash> | IDEMPOTENCY | –                           | –                 |
 * | rate window     | RATE#<acc>#<mode>      | WINDOW#<start>      | –                               | –                 |
 *
 * One merchant's links and events are spread over `MERCHANT_SHARDS` partitions (`#<shard>` suffix), merged by
 * their readers; links listed before the split stay under `ACCOUNT#<acc>#MODE#<mode>#LINKS`, events under the
 * unsuffixed feed key.
 * Events are in the timelines index (key attributes gsi3pk, gsi3sk) under `EVENTS#<acc>#<mode>#<shard>` by
 * `<created_at>#<id>`: the events API's feed. Open links with an `expires_at` are there too (gsi3pk
 * `EXPIRY#<shard>`, gsi3sk `<expires_at>#<id>`), which the expiry sweeper reads; any other state drops them
 * from it. Paid links with a refund check due are there under `REFUNDCHECK#<shard>` (gsi3sk
 * `<refund_check_at>#<id>`), the refund sweeper's list.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /**
   * Overloaded index of what belongs to whom, newest last in key order: an account's links and API keys, a
   * connection by its id. It holds the keys only, and readers fetch the items by key: a copy of every
   * attribute was rewritten (1 write unit) each time a link's session was saved and when it was paid
   * (docs/performance.md#cost-per-million-payment-links-on-aws). Named `listings`: it replaced `gsi1`, which
   * projected every attribute, on the same key attributes (docs/operations.md#index-migrations).
   */
  gsi1: {
    indexName: 'listings',
    partitionKey: 'gsi1pk',
    sortKey: 'gsi1sk',
    projection: { type: 'KEYS_ONLY' },
  },
  /**
   * Sparse index of events (and endpoint recoveries) still to be handed to delivery: the outbox the sweeper
   * re-enqueues from. It holds only what the sweeper reads ({@link OUTBOX_ATTRIBUTES}): a copy of the whole
   * event (over 1 KB with its payload) cost 2 write units to enter and 2 to leave, the keys and these
   * attributes 1 each (docs/performance.md#cost-per-million-payment-links-on-aws). Named `outbox`: it
   * replaced `gsi2`, which projected every attribute, on the same key attributes
   * (docs/operations.md#index-migrations).
   */
  gsi2: {
    indexName: 'outbox',
    partitionKey: 'gsi2pk',
    sortKey: 'gsi2sk',
    projection: {
      type: 'INCLUDE',
      attributes: ['id', 'account', 'mode', 'delivery_seq', 'endpoint_id', 'kind'],
    },
  },
  /**
   * Sparse index of what happens by time: the account's events feed, and the sweepers' work lists (due
   * expiries, payment and refund checks), each by its time. It holds only what a Query filters on or reads
   * (`projection.attributes` below, none of which changes while an item is listed), and readers fetch the
   * items themselves by key: a copy of every attribute cost an event 2 write units to enter and 2 more when
   * its delivery was recorded (docs/performance.md#cost-per-million-payment-links-on-aws). Named `timelines`:
   * it replaced `gsi3`, which projected every attribute, on the same key attributes
   * (docs/operations.md#index-migrations).
   */
  gsi3: {
    indexName: 'timelines',
    partitionKey: 'gsi3pk',
    sortKey: 'gsi3sk',
    projection: { type: 'INCLUDE', attributes: ['id', 'mode', 'link_id', 'type'] },
  },
  /** Epoch seconds after which DynamoDB may delete the item (idempotency records, rate-limit windows). */
  timeToLiveAttribute: 'ttl',
} as const;

/** What an index holds of each item beside the keys: every attribute, the ones named, or none. */
export type IndexProjection =
  | { type: 'ALL' }
  | { type: 'INCLUDE'; attributes: readonly string[] }
  | { type: 'KEYS_ONLY' };

export interface TableIndex {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  projection: IndexProjection;
}

/** The secondary indexes with their projections (the CDK table, the local stack and the cost bench read it). */
export const tableIndexes: readonly TableIndex[] = [tableSchema.gsi1, tableSchema.gsi2, tableSchema.gsi3];

/**
 * The indexes each current one replaced on the same key attributes (every attribute projected), by name: a
 * deployed table keeps them while it moves (docs/operations.md#index-migrations), since DynamoDB cannot
 * change a projection and CloudFormation adds or deletes one index per update.
 */
export const formerIndexes: readonly TableIndex[] = [
  { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: { type: 'ALL' } },
  { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: { type: 'ALL' } },
  { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', projection: { type: 'ALL' } },
];

/**
 * The names of the indexes the functions query, by role: the current ones, or the one a replacement replaced
 * while a deployed table's migration fills it (functions/config.ts, docs/operations.md#index-migrations).
 */
export interface IndexNames {
  listings: string;
  timelines: string;
}

export const currentIndexNames: IndexNames = {
  listings: tableSchema.gsi1.indexName,
  timelines: tableSchema.gsi3.indexName,
};

/** The attributes the outbox sweeper reads from the outbox index (functions/adapters/dynamodb/event-repository.ts). */
export const OUTBOX_ATTRIBUTES = tableSchema.gsi2.projection.attributes;

export const keys = {
  link: (id: string, mode: string) => ({ pk: `LINK#${id}`, sk: `MODE#${mode}` }),
  /** gsi1 partition of an account's links before the split (`linkListing` since: docs/operations.md). */
  linksOfAccount: (account: string, mode: string) => `ACCOUNT#${account}#MODE#${mode}#LINKS`,
  /**
   * gsi1 partitions of an account's links, `LINKS#<acc>#<mode>#<shard>` (`merchantPartitionOf`): shorter than
   * the unsplit key, as it is stored twice per link (the item and its index copy).
   */
  linkListing: (account: string, mode: string) => `LINKS#${account}#${mode}`,
  event: (id: string, mode: string) => ({ pk: `EVENT#${id}`, sk: `MODE#${mode}` }),
  /**
   * An event's delivery to one webhook endpoint: beside the event in its partition, so that the event and all
   * its deliveries are one Query (`begins_with(sk, MODE#<mode>)`).
   */
  eventDelivery: (id: string, mode: string, endpointId: string) => ({
    pk: `EVENT#${id}`,
    sk: `MODE#${mode}#ENDPOINT#${endpointId}`,
  }),
  /** gsi3 partition of an (account, mode)'s events, by creation time: the events API's feed. */
  eventFeed: (account: string, mode: string) => `EVENTS#${account}#${mode}`,
  apiKey: (keyId: string) => ({ pk: `APIKEY#${keyId}`, sk: 'APIKEY' }),
  apiKeysOfAccount: (account: string) => `ACCOUNT#${account}#APIKEYS`,
  /**
   * The webhook signing secret, encrypted, in a partition of its own so that the public-facing functions can
   * be refused it by key prefix (`dynamodb:LeadingKeys`, lib/routes.ts).
   */
  signingSecret: (account: string, mode: string) => ({
    pk: `SIGNING_SECRET#${account}`,
    sk: `MODE#${mode}`,
  }),
  /** Where signing secrets were kept in plaintext before; moved to `signingSecret` on first use. */
  legacyWebhookSecret: (account: string, mode: string) => ({
    pk: `ACCOUNT#${account}`,
    sk: `WEBHOOK_SECRET#${mode}`,
  }),
  /** gsi2 (outbox) partition of an undelivered event; see {@link outboxKeys}. */
  outbox: (shard: number) => `OUTBOX#${shard}`,
  /** gsi3 partition of an open link's expiry. */
  expiryShard: (shard: number) => `EXPIRY#${shard}`,
  /** gsi3 partition of a paid link's next check of its pending refunds. */
  refundCheckShard: (shard: number) => `REFUNDCHECK#${shard}`,
  idempotency: (account: string, mode: string, keyHash: string) => ({
    pk: `IDEMPOTENCY#${account}#${mode}#${keyHash}`,
    sk: 'IDEMPOTENCY',
  }),
  rateWindow: (account: string, mode: string, windowStart: number) => ({
    pk: `RATE#${account}#${mode}`,
    sk: `WINDOW#${windowStart}`,
  }),
};

/**
 * The rates of links the key design carries (docs/scaling.md#configured-peak): over all merchants, and from one.
 * Every shard count below derives from them; the CDK context values `peakLinksPerSecond` and
 * `peakLinksPerSecondOfOneMerchant` are checked against them at synth (lib/app.ts), so a deployment planned for
 * more fails until these are raised, and every function is built with the new counts in the same deploy.
 */
export const DESIGN_PEAK = { linksPerSecond: 20_000, linksPerSecondOfOneMerchant: 3_000 } as const;

/** DynamoDB's write units a second per partition key, and the margin kept below it (docs/scaling.md). */
const PARTITION_WRU = 1000;
const HEADROOM = 1.5;

/**
 * Partitions a list needs so that none passes `PARTITION_WRU` at `linksPerSecond`, when each link's life writes
 * `wruPerLink` units to it (the heat bench, test/bench/rows/90-partition-heat.ts, measures them).
 */
export function shardsFor(linksPerSecond: number, wruPerLink: number): number {
  return Math.max(1, Math.ceil((linksPerSecond * wruPerLink * HEADROOM) / PARTITION_WRU));
}

/**
 * The sweepers' work lists (the outbox in gsi2; due expiries, payment and refund checks in gsi3) are each
 * spread over this many index partitions: a link's life writes 2 units to the outbox (its event enters and
 * leaves) and 2 to the payment checks, and every link of every merchant shares them. A sweeper reads every
 * shard in parallel (`itemsOfShards` in query.ts). The count may only grow: an entry stays in the shard it was
 * written to until it is next written, and readers read shards 0 to the count.
 */
export const INDEX_SHARDS = shardsFor(DESIGN_PEAK.linksPerSecond, 2);

/**
 * One merchant's listings and events feed are each spread over this many index partitions (a link's life writes
 * 1 unit to each), beside the unsuffixed partition that items written before the split stay in
 * (docs/operations.md#merchant-partition-split); readers merge them all by sort key.
 */
export const MERCHANT_SHARDS = shardsFor(DESIGN_PEAK.linksPerSecondOfOneMerchant, 1);

/** The shard an id's entry lives in, the same hash for every sharded index. */
export function shardOf(id: string, shards: number = INDEX_SHARDS): number {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % shards;
}

/**
 * Every partition key of a merchant-split list: `unsplit`, where items written before the split stay, then each
 * shard of `base`.
 */
export function merchantPartitions(unsplit: string, base: string = unsplit): string[] {
  return [unsplit, ...Array.from({ length: MERCHANT_SHARDS }, (_, shard) => `${base}#${shard}`)];
}

/** The partition of a merchant-split partition `base` that the item `id` is written to. */
export const merchantPartitionOf = (base: string, id: string): string =>
  `${base}#${shardOf(id, MERCHANT_SHARDS)}`;

/** gsi2 attributes of an event due at `dueAt`: shard by event id, sort by due time (ISO 8601 sorts as text). */
export function outboxKeys(eventId: string, dueAt: Date) {
  return { gsi2pk: keys.outbox(shardOf(eventId)), gsi2sk: `${dueAt.toISOString()}#${eventId}` };
}

/** gsi3 attributes of an event in its tenant's feed (`GET /v1/events`), newest last in key order. */
export function eventFeedKeys(event: { id: string; account: string; mode: string; created_at: string }) {
  return {
    gsi3pk: merchantPartitionOf(keys.eventFeed(event.account, event.mode), event.id),
    gsi3sk: `${event.created_at}#${event.id}`,
  };
}

/** gsi3 attributes of a paid link whose pending refunds the sweeper asks about at `checkAt`. */
export function refundCheckKeys(linkId: string, checkAt: string) {
  return { gsi3pk: keys.refundCheckShard(shardOf(linkId)), gsi3sk: `${checkAt}#${linkId}` };
}

/** An item's key and index attributes, and its expiry: the table's, not its record's (item-decoder.ts). */
export const KEY_ATTRIBUTES: readonly string[] = [
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi3pk',
  'gsi3sk',
  'ttl',
];

/** Keys of checkout's own records: which PSP serves an account, and the sandbox PSP's sessions. */
export const checkoutKeys = {
  /** Which PSP serves an (account, mode): `ACCOUNT#<acc>` / `PSP#<mode>`. */
  pspConfig: (account: string, mode: string) => ({ pk: `ACCOUNT#${account}`, sk: `PSP#${mode}` }),
  /** The branding of an (account, mode)'s checkout pages: `ACCOUNT#<acc>` / `CHECKOUT_SETTINGS#<mode>`. */
  checkoutSettings: (account: string, mode: string) => ({
    pk: `ACCOUNT#${account}`,
    sk: `CHECKOUT_SETTINGS#${mode}`,
  }),
  /** A session of the built-in sandbox PSP (its own "database"), deleted by TTL after it expired. */
  sandboxSession: (id: string) => ({ pk: `SANDBOX#${id}`, sk: 'SANDBOX_SESSION' }),
  /** A simulated mandate of the sandbox, and each charge of it beside it (by the charge's reference). */
  sandboxMandate: (id: string) => ({ pk: `SANDBOX#${id}`, sk: 'SANDBOX_MANDATE' }),
  sandboxCharge: (mandateId: string, reference: string) => ({
    pk: `SANDBOX#${mandateId}`,
    sk: `CHARGE#${reference}`,
  }),
};

/** Keys of webhook delivery's own records: the health of each merchant endpoint, shared by every instance. */
export const deliveryKeys = {
  /** The shared health of one tenant's webhook endpoint: `ENDPOINT#<acc>#<mode>#<origin>` / `HEALTH`. */
  endpointHealth: (account: string, mode: string, origin: string) => ({
    pk: `ENDPOINT#${account}#${mode}#${origin}`,
    sk: 'HEALTH',
  }),
};

/**
 * Keys of webhook endpoints: a tenant's endpoints and their count share one partition, so delivery reads them
 * with one Query, and the public-facing functions are refused it by its prefix (their signing secrets are in
 * it).
 */
export const endpointKeys = {
  directory: (account: string, mode: string) => `WEBHOOK_ENDPOINTS#${account}#${mode}`,
  endpoint: (account: string, mode: string, id: string) => ({
    pk: endpointKeys.directory(account, mode),
    sk: `ENDPOINT#${id}`,
  }),
  /** The endpoint's recovery (the latest; at most one runs). */
  recovery: (account: string, mode: string, id: string) => ({
    pk: endpointKeys.directory(account, mode),
    sk: `RECOVERY#${id}`,
  }),
  /** How many endpoints the tenant holds: a conditional counter that keeps the limit. */
  count: (account: string, mode: string) => ({ pk: endpointKeys.directory(account, mode), sk: 'COUNT' }),
};

/**
 * Keys of PSP connections and routing. An (account, mode)'s connections and its routing document share one
 * partition, so checkout reads them with one strongly consistent Query; gsi1 finds a connection by id alone
 * (the notification route and the CLI name only the id).
 */
export const connectionKeys = {
  directory: (account: string, mode: string) => `PSP#${account}#${mode}`,
  connection: (account: string, mode: string, id: string) => ({
    pk: connectionKeys.directory(account, mode),
    sk: `CONNECTION#${id}`,
  }),
  routing: (account: string, mode: string) => ({
    pk: connectionKeys.directory(account, mode),
    sk: 'ROUTING',
  }),
  /** gsi1 keys of a connection. */
  byId: (id: string) => ({ gsi1pk: `CONNECTION#${id}`, gsi1sk: 'CONNECTION' }),
};

/**
 * Keys of payments: beside their link (same partition, so a link's payments are one Query), and while pending
 * in the sparse index gsi3 under `PAYCHECK#<shard>` by the time they are next asked about (the sweeper's
 * list). A payment whose id is time-ordered (made since 2026-11-28) sorts after `~`, past every older (random)
 * one, in creation order: `since` bounds a read of the newest (docs/data-model.md#payments-in-creation-order).
 */
export const paymentKeys = {
  payment: (linkId: string, mode: string, id: string) => ({
    pk: `LINK#${linkId}`,
    sk: isTimeOrderedId('pay', id) ? `PAYMENT#${mode}#~${id}` : `PAYMENT#${mode}#${id}`,
  }),
  /** The sort keys of a link's time-ordered payments made at or after `at`. */
  since: (linkId: string, mode: string, at: Date) => ({
    pk: `LINK#${linkId}`,
    from: `PAYMENT#${mode}#~${timeOrderedIdFloor('pay', at)}`,
    to: `PAYMENT#${mode}#~~`,
  }),
  ofLink: (linkId: string, mode: string) => ({ pk: `LINK#${linkId}`, skPrefix: `PAYMENT#${mode}#` }),
  checkShard: (shard: number) => `PAYCHECK#${shard}`,
  /** gsi3 partition of settled payments holding personal data, by their next retention check. */
  retentionShard: (shard: number) => `RETENTION#${shard}`,
};

/**
 * Keys of the account-wide books (`GET /v1/payments`, `GET /v1/refunds`, docs/data-model.md#books): every
 * payment and every refund entry in its (account, mode)'s listing in gsi1, split over `MERCHANT_SHARDS` by id
 * and merged by readers; those with a `client_reference_id` also in gsi2 under the reference (split likewise,
 * as one merchant may give every buyer the same reference). A refund lives in its link's item; its entry is a
 * copy beside the link, written right after each write of the refund (docs/data-model.md#books).
 */
export const bookKeys = {
  payments: (account: string, mode: string) => `PAYMENTS#${account}#${mode}`,
  refunds: (account: string, mode: string) => `REFUNDS#${account}#${mode}`,
  paymentsByReference: (account: string, mode: string, reference: string) =>
    `PAYREF#${account}#${mode}#${reference}`,
  refundsByReference: (account: string, mode: string, reference: string) =>
    `REFUNDREF#${account}#${mode}#${reference}`,
  refundEntry: (linkId: string, mode: string, id: string) => ({
    pk: `LINK#${linkId}`,
    sk: `REFUND#${mode}#${id}`,
  }),
  refundsOfLink: (linkId: string, mode: string) => ({ pk: `LINK#${linkId}`, skPrefix: `REFUND#${mode}#` }),
};

/** Keys of personal data's own records (docs/security.md#personal-data). */
export const personalDataKeys = {
  /**
   * Where a payment holding personal data is, by its id alone (`DELETE /v1/payments/{id}/buyer`): written once,
   * when a payment first holds some, so that payments without any cost nothing more.
   */
  paymentPointer: (id: string, mode: string) => ({ pk: `PAYMENT#${id}`, sk: `MODE#${mode}` }),
  /** An (account, mode)'s retention period: `ACCOUNT#<acc>` / `ACCOUNT_SETTINGS#<mode>`. */
  accountSettings: (account: string, mode: string) => ({
    pk: `ACCOUNT#${account}`,
    sk: `ACCOUNT_SETTINGS#${mode}`,
  }),
};

/**
 * Keys of the console's search index (docs/data-model.md#search): one item per token of an entity, in its (account,
 * mode)'s partition of the token's kind and head (a whole token of the exact kinds, the first characters of a
 * prefix kind's), split over `SEARCH_SHARDS` by the entity's id; sorted by the token, then the entity's time.
 */
export const searchKeys = {
  partition: (account: string, mode: string, kind: string, head: string, shard: number) =>
    `SEARCH#${account}#${mode}#${kind}#${head}#${shard}`,
  /** The token, then U+001F (no token holds a control character), then `<created_at>#<id>`. */
  sort: (token: string, position?: string) => `${token}\u001f${position ?? ''}`,
};
/** One merchant's tokens sharing a head, two per entity at most at its peak (docs/scaling.md#search). */
export const SEARCH_SHARDS = shardsFor(DESIGN_PEAK.linksPerSecondOfOneMerchant, 2);

/** The position of an entry in the books: `<created_at>#<id>`, as every listing sorts. */
export const bookPosition = (entry: { created_at: string; id: string }): string =>
  `${entry.created_at}#${entry.id}`;

/** Every shard of a merchant-split list written only since the split (no unsuffixed partition). */
export const merchantShards = (base: string): string[] =>
  Array.from({ length: MERCHANT_SHARDS }, (_, shard) => `${base}#${shard}`);

/**
 * The index attributes of a book entry (a payment or a refund entry): its listing in gsi1, and its reference's
 * in gsi2 when it has one.
 */
export function bookEntryKeys(
  listing: string,
  byReference: ((reference: string) => string) | undefined,
  entry: { id: string; created_at: string; client_reference_id?: string | undefined },
) {
  const position = bookPosition(entry);
  const reference =
    byReference && entry.client_reference_id !== undefined
      ? { gsi2pk: merchantPartitionOf(byReference(entry.client_reference_id), entry.id), gsi2sk: position }
      : {};
  return { gsi1pk: merchantPartitionOf(listing, entry.id), gsi1sk: position, ...reference };
}

/**
 * Keys of subscriptions (docs/data-model.md#subscriptions): the subscription, and its renewals' payments beside it
 * (one partition a subscription, however many links and buyers share); an (account, mode)'s listing in gsi1, split
 * over `MERCHANT_SHARDS`; while something is scheduled, the charge sweeper's list in gsi3 under `SUBDUE#<shard>` by
 * `<due_at>#<id>`; a buyer's cancel link by the SHA-256 of its token.
 */
export const subscriptionKeys = {
  subscription: (id: string, mode: string) => ({ pk: `SUB#${id}`, sk: `MODE#${mode}` }),
  renewal: (id: string, mode: string, paymentId: string) => ({
    pk: `SUB#${id}`,
    sk: `PAYMENT#${mode}#~${paymentId}`,
  }),
  renewalsOf: (id: string, mode: string) => ({ pk: `SUB#${id}`, skPrefix: `PAYMENT#${mode}#` }),
  listing: (account: string, mode: string) => `SUBS#${account}#${mode}`,
  dueShard: (shard: number) => `SUBDUE#${shard}`,
  cancelLink: (tokenHash: string) => ({ pk: `SUBCANCEL#${tokenHash}`, sk: 'CANCEL_LINK' }),
};

/**
 * Keys of the merchant console's records (functions/adapters/dynamodb/console-store.ts). Sign-in links and
 * sessions are found by the SHA-256 of their secret; an account's audit log is one partition, newest last.
 */
export const consoleKeys = {
  signInLink: (tokenHash: string) => ({ pk: `CONSOLE_SIGNIN#${tokenHash}`, sk: 'SIGNIN' }),
  session: (idHash: string) => ({ pk: `CONSOLE_SESSION#${idHash}`, sk: 'SESSION' }),
  audit: (account: string, position: string) => ({ pk: `CONSOLE_AUDIT#${account}`, sk: position }),
};
