/**
 * The single table's key schema, shared by the adapters, the CDK table construct and the local stack so the
 * three cannot drift. Access patterns (docs/data-model.md has the full list):
 *
 * | item            | pk                     | sk                  | gsi1pk                          | gsi1sk            |
 * |-----------------|------------------------|---------------------|---------------------------------|-------------------|
 * | payment link    | LINK#<id>              | MODE#<mode>         | ACCOUNT#<acc>#MODE#<mode>#LINKS | <created_at>#<id> |
 * | event           | EVENT#<id>             | MODE#<mode>         | LINK#<link id>#MODE#<mode>      | <created_at>#<id> |
 * | API key         | APIKEY#<key id>        | APIKEY              | ACCOUNT#<acc>#APIKEYS           | <created_at>      |
 * | webhook secret  | ACCOUNT#<acc>          | WEBHOOK_SECRET#<mode> | –                             | –                 |
 * | idempotency     | IDEMPOTENCY#<acc>#<mode>#<key hash> | IDEMPOTENCY | –                           | –                 |
 * | rate window     | RATE#<acc>#<mode>      | WINDOW#<start>      | –                               | –                 |
 *
 * Open links with an `expires_at` are also in the sparse index gsi3 (gsi3pk `EXPIRY#<shard>`, gsi3sk
 * `<expires_at>#<id>`), which the expiry sweeper reads; any other state drops them from it.
 */
export const tableSchema = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Overloaded secondary index: listings by account and by link, newest last in key order. */
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /** Sparse index of events still to be handed to delivery (the outbox the sweeper re-enqueues from). */
  gsi2: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  /** Sparse index of open links with an expiry, by expiry time, spread over shards: the sweeper's work list. */
  gsi3: { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
  /** Number of gsi3 partitions the due links are spread over (a shard is picked from the link id). */
  expiryShards: 4,
  /** Epoch seconds after which DynamoDB may delete the item (idempotency records, rate-limit windows). */
  timeToLiveAttribute: 'ttl',
} as const;

export const keys = {
  link: (id: string, mode: string) => ({ pk: `LINK#${id}`, sk: `MODE#${mode}` }),
  linksOfAccount: (account: string, mode: string) => `ACCOUNT#${account}#MODE#${mode}#LINKS`,
  event: (id: string, mode: string) => ({ pk: `EVENT#${id}`, sk: `MODE#${mode}` }),
  eventsOfLink: (linkId: string, mode: string) => `LINK#${linkId}#MODE#${mode}`,
  apiKey: (keyId: string) => ({ pk: `APIKEY#${keyId}`, sk: 'APIKEY' }),
  apiKeysOfAccount: (account: string) => `ACCOUNT#${account}#APIKEYS`,
  webhookSecret: (account: string, mode: string) => ({
    pk: `ACCOUNT#${account}`,
    sk: `WEBHOOK_SECRET#${mode}`,
  }),
  /** gsi2 (outbox) partition of an undelivered event; see {@link outboxKeys}. */
  outbox: (shard: number) => `OUTBOX#${shard}`,
  expiryShard: (shard: number) => `EXPIRY#${shard}`,
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
 * The outbox is spread over a few gsi2 partitions so that its writes (every event is written there several
 * times: recorded, retried, postponed by the sweeper) never concentrate on one index partition; the sweeper
 * reads them all.
 */
export const OUTBOX_SHARDS = 4;

/** gsi2 attributes of an event due at `dueAt`: shard by event id, sort by due time (ISO 8601 sorts as text). */
export function outboxKeys(eventId: string, dueAt: Date) {
  let hash = 0;
  for (const char of eventId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { gsi2pk: keys.outbox(hash % OUTBOX_SHARDS), gsi2sk: `${dueAt.toISOString()}#${eventId}` };
}

const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'ttl'];

/** The domain record inside a stored item: the item minus its key and index attributes. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const copy: Record<string, unknown> = { ...item };
  for (const attribute of KEY_ATTRIBUTES) delete copy[attribute];
  return copy as T;
}

/** Keys added for checkout (kept apart from `keys` above so parallel changes merge cleanly). */
export const checkoutKeys = {
  /** Which PSP serves an (account, mode): `ACCOUNT#<acc>` / `PSP#<mode>`. */
  pspConfig: (account: string, mode: string) => ({ pk: `ACCOUNT#${account}`, sk: `PSP#${mode}` }),
  /** A session of the built-in sandbox PSP (its own "database"), deleted by TTL after it expired. */
  sandboxSession: (id: string) => ({ pk: `SANDBOX#${id}`, sk: 'SANDBOX_SESSION' }),
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
