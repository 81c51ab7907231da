/**
 * The one route table. The CDK stack (lib/constructs/merchant-api.ts) and the local stack (lib/local/) both
 * read it, so what runs locally is what deploys. Pure data: no CDK import. The HTTP routes themselves live in
 * functions/http/routes.ts, because the fallback function answers from them at run time.
 *
 * `handler` names a file in functions/handlers/ (without `.ts`) that exports `handler`; routes that share a
 * handler share one Lambda function. `table` lists the DynamoDB actions that function needs, which the stack
 * turns into a least-privilege policy.
 */
import {
  ANSWER_ROOM_MS,
  CHECKOUT_PSP_CALLS,
  callsWorstCaseMs,
  NOTIFICATION_PSP_CALLS,
} from '../functions/domain/call-budgets.ts';
import { AUDITED_ROUTES } from '../functions/http/api/api-audit.ts';
import { routes as httpRoutes, type RouteDefinition } from '../functions/http/routes.ts';
import type { FunctionDefinition, TableAction } from './function-definition.ts';

export { allowedMethodsByPath, type RouteDefinition } from '../functions/http/routes.ts';

export type { FunctionDefinition, TableAction } from './function-definition.ts';

export const DEFAULT_TIMEOUT_SECONDS = 10;

/**
 * Functions run on a timer: an EventBridge schedule on AWS, an interval in the local stack twelve times shorter, so
 * that what happens every minute on AWS is seen within seconds locally. Each run reads every shard of its lists
 * (60 queries a list, `INDEX_SHARDS`) even when nothing is due: the hourly and quarter-hourly sweepers every 5 s too
 * cost an idle `npm start` a quarter more CPU (docs/operations.md#local-sweepers).
 */
export interface ScheduleDefinition {
  handler: HandlerName;
  everyMinutes: number;
  localEverySeconds: number;
}

/** What changing a subscription writes (functions/adapters/dynamodb/subscription-repository.ts). */
const SUBSCRIPTION_CHANGE: readonly TableAction[] = ['GetItem', 'PutItem', 'DeleteItem'];
/**
 * What ending a subscription needs: its change, and its update link's cancel, which ends that link's PSP session as
 * cancel-payment-link does (functions/use-cases/subscription-endings.ts).
 */
const SUBSCRIPTION_ENDING = {
  table: [...SUBSCRIPTION_CHANGE, 'UpdateItem', 'Query'],
  sendsEvents: true,
  secrets: ['sandbox', 'psp'],
  calls: { psp: 4 },
} as const satisfies FunctionDefinition;
/** What charging subscriptions needs: the sweeper's and the test clock's. */
const SUBSCRIPTION_CHARGES = {
  table: [...SUBSCRIPTION_CHANGE, 'UpdateItem', 'Query'],
  sendsEvents: true,
  secrets: ['sandbox', 'psp'],
} as const satisfies FunctionDefinition;

/** Per-function needs, keyed by handler file. */
export const functions = {
  'create-payment-link': { table: ['PutItem'], merchantApi: true },
  'get-payment-link': { table: ['GetItem'], merchantApi: true },
  // Anyone may call unknown paths; the answer is a constant 404/405, so a few instances serve any rate.
  'route-fallback': { table: [], reservedConcurrency: 10 },
  'list-payment-link-events': { table: ['GetItem', 'BatchGetItem'], merchantApi: true },
  // Query: the event with its deliveries to webhook endpoints (one partition).
  'redeliver-event': { table: ['GetItem', 'Query', 'UpdateItem'], sendsEvents: true, merchantApi: true },
  // PutItem and Query: the fan-out of an event to the tenant's webhook endpoints (one delivery item each).
  'deliver-webhook': {
    table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'Query'],
    sendsEvents: true,
    sendsDeadLetters: true,
    timeoutSeconds: 30,
    signingKey: true,
  },
  // Webhook endpoints: a tenant's are one partition (functions/adapters/dynamodb/webhook-endpoint-repository.ts);
  // creating one, or rotating its secret, seals a new secret that only delivery can open.
  'create-webhook-endpoint': {
    table: ['PutItem', 'UpdateItem'],
    merchantApi: true,
    signingKey: 'seal',
  },
  'list-webhook-endpoints': { table: ['Query'], merchantApi: true },
  'get-webhook-endpoint': { table: ['GetItem'], merchantApi: true },
  'update-webhook-endpoint': { table: ['UpdateItem'], merchantApi: true },
  'delete-webhook-endpoint': { table: ['DeleteItem', 'UpdateItem'], merchantApi: true },
  'rotate-webhook-endpoint-secret': {
    table: ['GetItem', 'UpdateItem'],
    merchantApi: true,
    signingKey: 'seal',
  },
  // Takes the endpoint's one-test lease and frees it after (UpdateItem), records a test event with its delivery,
  // queues it, and waits for the attempt (a test's 5 s timeout and the queue's hand-over:
  // functions/handlers/test-webhook-endpoint.ts).
  'test-webhook-endpoint': {
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    sendsEvents: true,
    merchantApi: true,
    timeoutSeconds: 25,
  },
  // Starts a recovery (a conditional write beside the endpoint) and queues its first step.
  'recover-webhook-endpoint': { table: ['GetItem', 'UpdateItem'], sendsEvents: true, merchantApi: true },
  // The account's event feed (the timelines index lists it; the events are read by key) and an event's
  // deliveries (its partition).
  'list-events': { table: ['Query', 'BatchGetItem'], merchantApi: true },
  'get-event': { table: ['Query'], merchantApi: true },
  'outbox-sweeper': { table: ['Query', 'UpdateItem'], sendsEvents: true, timeoutSeconds: 60 },
  // Up to three rounds when concurrent writers keep winning: create a session, then end it unused (the last
  // round ends nothing).
  'checkout-page': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'Query'],
    // About a second per visit (a PSP session creation): 100 instances serve some 100 buyer visits a second.
    reservedConcurrency: 100,
    secrets: ['sandbox', 'psp'],
    calls: { psp: CHECKOUT_PSP_CALLS },
    clientAddress: true,
  },
  // The QR code is drawn from the id alone: no table, no secret, no PSP SDK (functions/handlers/checkout-qr.ts).
  'checkout-qr': {
    table: [],
    // A few milliseconds per code, storeless and cacheable.
    reservedConcurrency: 10,
  },
  'psp-notifications': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    // PSPs retry what we refuse (some for days), so a cap costs delay, never a status.
    reservedConcurrency: 50,
    sendsEvents: true,
    secrets: ['sandbox', 'psp'],
    // Two more: a link's last payment ends its other open sessions, reading back those whose PSP refuses
    // (functions/use-cases/session-endings.ts).
    calls: { psp: NOTIFICATION_PSP_CALLS + 2 },
  },
  // Pay on a session that opens a mandate stores it (PutItem, functions/adapters/dynamodb/sandbox-mandate-store.ts).
  'sandbox-checkout': {
    table: ['GetItem', 'PutItem', 'UpdateItem'],
    reservedConcurrency: 20,
    secrets: ['sandbox'],
    calls: { sandboxNotification: 1 },
  },
  // The listings index holds keys only: the page's links are then read by key.
  'list-payment-links': { table: ['Query', 'BatchGetItem'], merchantApi: true },
  // Cancel and expiry end the link's PSP session, hence the PSP secrets. A session whose PSP refuses to end is
  // read back (a second call); one found paid is the link's last payment, whose other open sessions are then
  // ended and read back the same way (two more), or, paid at another amount, is refunded (one more):
  // functions/use-cases/payment-links.ts, session-endings.ts.
  'cancel-payment-link': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    sendsEvents: true,
    merchantApi: true,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 4 },
  },
  // Per link it expires; it stops taking links while one more might not fit (functions/handlers/expire-links.ts).
  // Asks PSPs about pending payments and refunds (missed notifications) and records their answers like a
  // notification; a refund settlement is one UpdateItem (functions/adapters/dynamodb/link-repository.ts).
  'check-pending-at-psps': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    sendsEvents: true,
    timeoutSeconds: 60,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 1 },
  },
  'expire-links': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    sendsEvents: true,
    timeoutSeconds: 60,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 1 },
  },
  // Updating ends the link's PSP session when what the buyer sees changes, hence the PSP secrets; the Query finds
  // a stored connection by its id (gsi1), as for every function that reaches a session's connection.
  // DeleteItem: the search keys of metadata values a change removed (docs/data-model.md#search). The session's
  // payment is recorded canceled once its PSP ended it (GetItem, PutItem).
  'update-payment-link': {
    table: ['GetItem', 'PutItem', 'DeleteItem', 'Query'],
    merchantApi: true,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 1 },
  },
  // Refunds go to the PSP that took the payment (its credentials), and settle with a webhook event.
  'create-refund': {
    // Query: the connection that took the payment is found by its id (gsi1).
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    sendsEvents: true,
    merchantApi: true,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 1 },
  },
  'list-refunds': { table: ['GetItem'], merchantApi: true },
  'get-openapi': { table: [], reservedConcurrency: 5 },
  'list-payments': { table: ['GetItem', 'Query'], merchantApi: true },
  // The books: the listing (keys only) or a link's partition, the entries read by key, and the link of a payment
  // older than payments' own amounts (functions/adapters/dynamodb/books.ts); a CSV export also reads each entry's
  // link and the connections' names (one Query), and a period given in dates the account's time zone. An export
  // reads up to 5 MB of pages, hence the longer timeout (under the HTTP API's 29 s).
  'list-account-payments': {
    table: ['GetItem', 'Query', 'BatchGetItem'],
    merchantApi: true,
    timeoutSeconds: 28,
  },
  'list-account-refunds': {
    table: ['GetItem', 'Query', 'BatchGetItem'],
    merchantApi: true,
    timeoutSeconds: 28,
  },
  // The books' totals: up to 10 pages of 1,000 payments of the listing, as list-account-payments reads them.
  'get-payment-summary': {
    table: ['GetItem', 'Query', 'BatchGetItem'],
    merchantApi: true,
    timeoutSeconds: 28,
  },
  // Settlements (docs/api.md#settlements): a page of the listing (keys only) read by key, or one with its lines (a
  // Query of its partition).
  'get-settlements': { table: ['Query', 'BatchGetItem'], merchantApi: true, timeoutSeconds: 28 },
  // Reads the payouts of the connections due and stores them matched to the books (docs/data-model.md#settlements):
  // its list in timelines, each line's payment by its reference pointer (and its link for a refund), a reported fee
  // a conditional PutItem of the payment, the settlement's lines put and those no longer there deleted.
  'sweep-settlements': {
    table: ['GetItem', 'BatchGetItem', 'PutItem', 'DeleteItem', 'Query'],
    timeoutSeconds: 120,
    secrets: ['sandbox', 'psp'],
    calls: { psp: 6 },
  },
  // Finds the payment by its pointer and its buyer's other attempts among its link's payments (Query), erases them
  // (conditional Puts) and every copy: refund entries, the link's events and their deliveries (Query, UpdateItem),
  // the link item (functions/adapters/dynamodb/personal-data-store.ts), and their search keys (DeleteItem).
  'erase-payment-buyer': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    merchantApi: true,
  },
  // Subscriptions (docs/subscriptions.md): a change is its events, then the subscription on condition of its
  // version (PutItem); an event whose write lost is deleted again (DeleteItem).
  'list-subscriptions': { table: ['Query', 'BatchGetItem'], merchantApi: true, timeoutSeconds: 28 },
  'get-subscription': { table: ['GetItem'], merchantApi: true },
  'update-subscription': { table: SUBSCRIPTION_CHANGE, merchantApi: true, sendsEvents: true },
  // A past-due subscription's cancel cancels its update link as cancel-payment-link does (its PSP secrets and
  // calls: the session ended and read back; one found paid is recorded and refunded, docs/subscriptions.md#update-links).
  'cancel-subscription': { ...SUBSCRIPTION_ENDING, merchantApi: true },
  'create-subscription-cancel-link': { table: ['GetItem', 'PutItem'], merchantApi: true },
  // The buyer's cancel page: cancels (as cancel-subscription), then marks its cancel link used (UpdateItem).
  'subscription-cancel-page': { ...SUBSCRIPTION_ENDING, reservedConcurrency: 10 },
  // The due lists and the mandate's connection (Query), one charge at its PSP, the renewal and the change, the
  // mandate's own records at the sandbox (UpdateItem), an update link after a decline that needs one, and the
  // cancel of a canceled subscription's update link (as cancel-subscription's).
  'charge-subscriptions': { ...SUBSCRIPTION_CHARGES, timeoutSeconds: 60, calls: { psp: 4 } },
  // The test clock runs for one subscription what the sweeper would: a charge, and what follows it at once (a
  // give-up's cancel ends the update link's session and reads it back).
  'advance-subscription': { ...SUBSCRIPTION_CHARGES, merchantApi: true, calls: { psp: 4 } },
  'get-account-settings': { table: ['GetItem'], merchantApi: true },
  'put-account-settings': { table: ['PutItem'], merchantApi: true },
  // The retention sweep: its list in the timelines index, then as `erase-payment-buyer` for each payment due.
  'erase-expired-buyer-details': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    timeoutSeconds: 60,
  },
  // Connections and routing are one Query; the GetItem reads a configuration from before connections.
  'list-psp-connections': { table: ['GetItem', 'Query', 'PutItem'], merchantApi: true },
  // Outcome counters are Queries by connection (docs/orchestration.md#observed-outcomes).
  'get-connection-performance': { table: ['GetItem', 'Query', 'PutItem'], merchantApi: true },
  'get-routing': { table: ['GetItem', 'Query', 'PutItem'], merchantApi: true },
  'put-routing': { table: ['GetItem', 'Query', 'PutItem'], merchantApi: true },
  // The arms' counters are Queries by (account, mode) and shard (docs/orchestration.md#uplift).
  'get-routing-uplift': { table: ['Query'], merchantApi: true },
  'get-checkout-settings': { table: ['GetItem'], merchantApi: true },
  'put-checkout-settings': { table: ['PutItem'], merchantApi: true },
  // The merchant console (docs/console.md): its sessions, sign-in links and audit log, and the links use cases
  // it calls as the API does (create, cancel, refund: the PSP secrets and calls of cancel-payment-link); webhook
  // endpoints it creates or rotates get a sealed secret, as create-webhook-endpoint's do; the books and their CSV
  // exports, and a buyer's erasure, as list-account-payments and erase-payment-buyer (all within these actions).
  console: {
    table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query'],
    sendsEvents: true,
    signingKey: 'seal',
    secrets: ['sandbox', 'psp'],
    calls: { psp: 4 },
    // People at a screen, not machines: a few instances serve every merchant's staff.
    reservedConcurrency: 10,
    // Sending a webhook endpoint a test event waits for its attempt, as test-webhook-endpoint does.
    timeoutSeconds: 25,
    clientAddress: true,
  },
  // The console's overview and its charts (Vega): the session (read, its idle timeout moved on), the books' payments
  // of the window, the connections and their observed outcomes (whose read may migrate an old configuration).
  'console-overview': {
    table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'DeleteItem', 'PutItem', 'Query'],
    reservedConcurrency: 5,
  },
} as const satisfies Record<string, FunctionDefinition>;

export type HandlerName = keyof typeof functions;

/** The longest an API Gateway HTTP API waits for its integration: a slower function's answer is lost. */
export const API_INTEGRATION_TIMEOUT_SECONDS = 29;

/**
 * A function's timeout: the worst case of the calls it declares plus room to answer, at least
 * `DEFAULT_TIMEOUT_SECONDS`, or its own longer `timeoutSeconds`.
 */
export function timeoutSecondsOf(handler: HandlerName): number {
  const definition: FunctionDefinition = functions[handler];
  const needed = Math.ceil((callsWorstCaseMs(definition.calls ?? {}) + ANSWER_ROOM_MS) / 1000);
  return Math.max(DEFAULT_TIMEOUT_SECONDS, needed, definition.timeoutSeconds ?? 0);
}

/** The HTTP routes (functions/http/routes.ts); this type checks that each names a handler of `functions`. */
export const routes: readonly (RouteDefinition & { handler: HandlerName })[] = httpRoutes;

export const schedules: readonly ScheduleDefinition[] = [
  { handler: 'outbox-sweeper', everyMinutes: 1, localEverySeconds: 5 },
  { handler: 'expire-links', everyMinutes: 1, localEverySeconds: 5 },
  { handler: 'check-pending-at-psps', everyMinutes: 1, localEverySeconds: 5 },
  // Renewals are due to the minute they were scheduled for; a backlog drains a batch a run.
  { handler: 'charge-subscriptions', everyMinutes: 1, localEverySeconds: 5 },
  // Each connection's payouts are read hourly (`PAYOUT_READ_INTERVAL_MS`); a run takes the connections due.
  { handler: 'sweep-settlements', everyMinutes: 15, localEverySeconds: 75 },
  // Retention is counted in days: once an hour is soon enough, and a backlog drains a batch a run.
  { handler: 'erase-expired-buyer-details', everyMinutes: 60, localEverySeconds: 300 },
];

/** The queue that carries webhook events from transitions to delivery. */
export const EVENTS_QUEUE_NAME = 'payment-links-events';

/** Receives of one message before SQS moves it to the dead-letter queue (messages that keep crashing). */
export const EVENTS_MAX_RECEIVE_COUNT = 20;

/**
 * The events queue's visibility timeout: six times the longest timeout of its consumers, as SQS advises for
 * Lambda event sources (a message is not handed out again while an invocation may still run).
 */
export function eventsQueueVisibilitySeconds(): number {
  const consumerTimeouts = queueConsumers.map((consumer) => timeoutSecondsOf(consumer.handler));
  return 6 * Math.max(DEFAULT_TIMEOUT_SECONDS, ...consumerTimeouts);
}

/** The dead-letter queue of the events queue: poison messages, and events whose webhooks finally failed. */
export const EVENTS_DEAD_LETTER_QUEUE_NAME = 'payment-links-events-dlq';

/**
 * Functions fed by a queue: an SQS event source mapping on AWS (with `reportBatchItemFailures`), a poller in
 * the local stack (lib/local/sqs-poller.ts) that invokes the handler with the same record shapes.
 */
export interface QueueConsumerDefinition {
  handler: HandlerName;
  queue: typeof EVENTS_QUEUE_NAME;
  /** Records per invocation. */
  batchSize: number;
  /**
   * Concurrent invocations at most (AWS: the event source's maximum concurrency, 2..1000; the CDK context
   * `webhookConcurrency` overrides it for a deployment). An endpoint that hangs holds at most the invocations
   * its isolation slots allow (functions/domain/endpoint-health.ts), so this bounds what the others keep.
   */
  maxConcurrency: number;
}

export const queueConsumers: readonly QueueConsumerDefinition[] = [
  { handler: 'deliver-webhook', queue: EVENTS_QUEUE_NAME, batchSize: 10, maxConcurrency: 10 },
];

/** The range SQS event sources accept for their maximum concurrency. */
export const EVENT_SOURCE_CONCURRENCY = { min: 2, max: 1000 } as const;

/** The authenticated API chain: API-key lookups (GetItem) and the rate-limit counter (UpdateItem). */
const MERCHANT_API_ACTIONS: readonly TableAction[] = ['GetItem', 'UpdateItem'];
/** Idempotency records of POST routes: claim (PutItem), read, complete (UpdateItem), release (DeleteItem). */
const IDEMPOTENCY_ACTIONS: readonly TableAction[] = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'];

/**
 * Every DynamoDB action a function needs: its own, plus those of the middleware it runs behind. The CDK stack
 * grants exactly these, and the local stack refuses anything else (lib/local/permissions.ts), so a missing
 * grant fails the tests instead of a deployment.
 */
export function tableActionsOf(handler: HandlerName): TableAction[] {
  const definition: FunctionDefinition = functions[handler];
  const actions = new Set<TableAction>(definition.table);
  if (definition.merchantApi) {
    for (const action of MERCHANT_API_ACTIONS) actions.add(action);
    if (routes.some((route) => route.handler === handler && route.method === 'POST')) {
      for (const action of IDEMPOTENCY_ACTIONS) actions.add(action);
    }
    // The audit log's entry of a change, written before it and settled after (functions/http/api/api-audit.ts).
    const audited = (route: (typeof routes)[number]) => AUDITED_ROUTES[`${route.method} ${route.path}`];
    if (routes.some((route) => route.handler === handler && audited(route))) actions.add('PutItem');
  }
  return [...actions].sort();
}

/**
 * Partition-key prefixes the public-facing functions may never touch, whatever actions they are granted: API-key
 * records (by key and by the account index), webhook signing secrets, and webhook endpoints (their own secrets). The stack denies them through
 * `dynamodb:LeadingKeys`; the local stack refuses them the same way (lib/local/permissions.ts).
 */
export const PUBLIC_DENIED_KEY_PATTERNS = [
  'APIKEY#*',
  'ACCOUNT#*#APIKEYS',
  'SIGNING_SECRET#*',
  'WEBHOOK_ENDPOINTS#*',
  // The console's sign-in links, sessions and audit log (functions/adapters/dynamodb/console-store.ts).
  'CONSOLE_*',
] as const;

/** Functions that serve public routes (buyers' browsers, PSPs): no API key stands in front of them. */
export function isPublicFacing(handler: HandlerName): boolean {
  return routes.some((route) => route.handler === handler && route.public);
}

/**
 * Functions anyone can make run without an API key: the public routes' (buyers, PSPs), the fallback that answers
 * every unknown path, and any route outside the merchant-API chain (the OpenAPI document). Each has a
 * `reservedConcurrency`.
 */
export function isKeyless(handler: HandlerName): boolean {
  const definition: FunctionDefinition = functions[handler];
  return (
    handler === FALLBACK_HANDLER ||
    isPublicFacing(handler) ||
    (!definition.merchantApi && routes.some((route) => route.handler === handler))
  );
}

/** Whether a partition-key value matches one of `PUBLIC_DENIED_KEY_PATTERNS` (`*`: any characters). */
export function isDeniedToPublic(partitionKey: string): boolean {
  return PUBLIC_DENIED_KEY_PATTERNS.some((pattern) =>
    new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`).test(partitionKey),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The handler that answers 405 for known paths with other methods and 404 for unknown paths. */
export const FALLBACK_HANDLER: HandlerName = 'route-fallback';
