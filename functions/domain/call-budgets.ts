/**
 * How long each kind of outbound call may take, set once. Clients take their per-try timeout and their number of
 * tries from here, and lib/routes.ts derives each function's timeout from the calls it declares, so a client can
 * never outlast the function that makes the call (docs/decisions.md#timeouts-that-fit).
 */
export interface CallBudget {
  /** Each try is abandoned after this long. */
  readonly timeoutMs: number;
  /** Tries in all, the first included. */
  readonly tries: number;
  /** The longest the client pauses between tries, summed over all of them. */
  readonly backoffMs: number;
}

/** The bound of one call to a PSP's API: no answer within it counts as the PSP being unavailable. */
export const PSP_CALL_TIMEOUT_MS = 5_000;

export const CALL_BUDGETS = {
  /**
   * Every PSP API call: create, retrieve or end a session, refunds. One try: what follows a failed call is not a
   * retry of the same PSP but the caller's own recovery (checkout fails over to the next connection, the PSP
   * re-sends its notification, the next sweep tries again, the merchant retries a cancel).
   */
  psp: { timeoutMs: PSP_CALL_TIMEOUT_MS, tries: 1, backoffMs: 0 },
  /**
   * The sandbox telling our own notification endpoint that a session completed (a request to another of our
   * functions). A second try covers one lost request; the buyer's page reports it if both fail.
   */
  sandboxNotification: { timeoutMs: 4_000, tries: 2, backoffMs: 0 },
} as const satisfies Record<string, CallBudget>;

export type CallKind = keyof typeof CALL_BUDGETS;

/** The longest a call of this budget can take: every try timing out, with every pause between. */
export function worstCaseMs(budget: CallBudget): number {
  return budget.timeoutMs * budget.tries + budget.backoffMs;
}

/** What a function keeps beyond its calls' worst case: enough to record the outcome and answer. */
export const ANSWER_ROOM_MS = 2_000;

/** The worst case of a sequence of calls: `calls` says how many of each kind one invocation makes at most. */
export function callsWorstCaseMs(calls: Partial<Record<CallKind, number>>): number {
  let total = 0;
  for (const [kind, count] of Object.entries(calls) as [CallKind, number][]) {
    total += count * worstCaseMs(CALL_BUDGETS[kind]);
  }
  return total;
}

/**
 * PSP calls one checkout request may make: ending the link's previous session, then session creations on the
 * routed connections in turn (failover) until one opens (docs/orchestration.md#failover).
 */
export const CHECKOUT_PSP_CALLS = 5;

/**
 * PSP calls one notification may make: reading the session it names, then the link's pending refunds, which
 * some PSPs report through the payment's notification (the refund sweeper reads any beyond these). A PSP that verifies a
 * notification by a call of its own (`verificationCalls`), and a capture of the session
 * (docs/orchestration.md#deferred-capture), take theirs from the refunds' share. So does the read of the mandate a
 * subscription's first payment opened (functions/use-cases/subscription-starts.ts), which can take one call more
 * than the share: at a PSP that verifies by a call and captures later, it reads the session, verifies, captures and
 * reads the mandate, four calls (docs/orchestration.md#deferred-capture). That payment has no refunds yet, and the
 * function's time still covers it, since the two session endings its route adds (lib/routes.ts) run only when a
 * whole round of them fits the time left (`endSessionsAfterLastPayment`).
 */
export const NOTIFICATION_PSP_CALLS = 3;
