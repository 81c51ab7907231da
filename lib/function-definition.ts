import type { CallKind } from '../functions/domain/call-budgets.ts';

/** What a function of the route table (lib/routes.ts) needs, apart from the table so that it stays short. */

export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

export interface FunctionDefinition {
  /** What the function's own use cases do to the table (the middleware's needs are added by `tableActionsOf`). */
  table: readonly TableAction[];
  /**
   * Behind the authenticated merchant-API chain (functions/http/api/api-handler.ts): it looks up API keys and counts
   * the rate limit, and on POST routes keeps idempotency records.
   */
  merchantApi?: boolean;
  /** Sends to the webhook event queue (functions whose transitions emit events). */
  sendsEvents?: boolean;
  /** Sends to the event queue's dead-letter queue (webhook delivery keeps finally failed events there). */
  sendsDeadLetters?: boolean;
  /**
   * The most outbound calls of each kind (functions/domain/call-budgets.ts) one invocation makes one after the
   * other. The function's timeout is derived from them (`timeoutSecondsOf`), so every call fits.
   */
  calls?: Partial<Record<CallKind, number>>;
  /**
   * A longer timeout than its calls need, for functions that work through a batch and watch the time they have
   * left (sweepers, queue consumers).
   */
  timeoutSeconds?: number;
  /**
   * Uses the key that seals webhook signing secrets (locally: the key file). `true` opens them (`kms:Decrypt`,
   * and `kms:GenerateDataKey` to seal): the delivery function only; the keys CLI, run by operators, is the only
   * other user. `'seal'` seals new ones only (`kms:GenerateDataKey`): the functions that create a webhook
   * endpoint or rotate its secret, which show it once and can never open it again
   * (docs/security.md#webhook-signing-secrets).
   */
  signingKey?: true | 'seal';
  /** Secrets it reads: the sandbox PSP's signing secret, and/or the PSP credentials (the connections' keys). */
  secrets?: readonly ('sandbox' | 'psp')[];
  /**
   * Tells clients apart by their address (the checkout's per-client budgets, the console's audit log): behind the
   * CloudFront front it gets the front's origin secret, to read the viewer's address (functions/http/client-address.ts).
   */
  clientAddress?: true;
  /**
   * Lambda reserved concurrency: this many concurrent invocations are kept for the function and it never runs
   * more. Every function reachable without an API key has one (`isKeyless`), so that a flood of one public route
   * cannot take the account's concurrency from the merchant API nor from another public route; merchant
   * functions share what is left. CDK context `<handler in camelCase>ReservedConcurrency` (e.g.
   * `checkoutPageReservedConcurrency`) changes it, `reservedConcurrency=off` drops every reservation
   * (docs/operations.md#reserved-concurrency).
   */
  reservedConcurrency?: number;
}
