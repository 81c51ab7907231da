import { CALL_BUDGETS, worstCaseMs } from '../../../domain/call-budgets.ts';
import {
  isRefusalStatus,
  PspCredentialsRejectedError,
  type PspFailure,
  PspOutageError,
  PspRefusalError,
  pspFailureOf,
} from '../../../ports/psp.ts';

/** The calls of every PSP adapter: bounded by the PSP call budget, their SDK's errors translated into one closed set. */

/** A PSP call that got no answer within its budget: the PSP counts as unavailable (a failover at checkout). */
export class PspCallTimeoutError extends PspOutageError {
  constructor(provider: string, ms: number) {
    super(`${provider} did not answer within ${ms} ms`);
    this.name = 'PspCallTimeoutError';
  }
}

/**
 * Bounds one call through a PSP SDK by `CALL_BUDGETS.psp`, whatever the SDK itself does: some SDKs have no
 * timeout and retry 5xx answers after seconds, others time out only an idle socket. The call is
 * abandoned (its promise ignored) when the budget runs out, so the function answers in time
 * (docs/decisions.md#timeouts-that-fit).
 */
export async function withinPspBudget<T>(provider: string, call: () => Promise<T>): Promise<T> {
  const ms = worstCaseMs(CALL_BUDGETS.psp);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PspCallTimeoutError(provider, ms)), ms);
  });
  try {
    return await Promise.race([call(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a PSP call was for: which answers are refusals depends on it (`PspRefusalError`). */
export type PspOperation = 'session' | 'end' | 'refund' | 'lookup';

/** What an adapter reads off its SDK's error: the facts `pspFailure` decides from. */
export interface PspErrorFacts {
  /** The PSP's name as merchants know it (its descriptor's `displayName`), which starts every message. */
  psp: string;
  /** The HTTP status the PSP answered with; undefined when none came (no answer, a network error). */
  status: number | undefined;
  /** The PSP's own reason, without the SDK's decoration. */
  reason: string;
  /**
   * For a `session` or an `end`: the PSP's answer that it will not do this (its validation answer to a
   * session, typically a 400 or 422 or the SDK's invalid-request error; its refusal to end one).
   */
  refusal?: boolean;
  /** For a `refund`: the PSP is still processing a request with the same idempotency key (the outcome is open). */
  inProgress?: boolean;
}

/**
 * The one translation of a PSP SDK's error into the closed set (`PspFailure`), shared by every adapter, each of
 * which reads the facts off its own SDK's errors: refused credentials (401, 403) first; then a refusal by the
 * operation's rule (a `session` or `end`: the adapter's `refusal`; a `refund`: `isRefusalStatus`, unless
 * `inProgress`); anything else the SDK threw is the PSP failing (`PspOutageError`). A failure already of the set
 * (a `PspCallTimeoutError`, an `InvalidNotificationError`) is kept as it is.
 */
export function pspFailure(error: unknown, operation: PspOperation, facts: PspErrorFacts): PspFailure {
  const known = pspFailureOf(error);
  if (known) return known;
  const { psp, status, reason } = facts;
  if (status === 401 || status === 403) {
    return new PspCredentialsRejectedError(`${psp}: ${reason}`, { cause: error });
  }
  const refused =
    operation === 'refund'
      ? isRefusalStatus(status) && !facts.inProgress
      : operation !== 'lookup' && facts.refusal === true;
  if (refused) {
    const message = operation === 'session' ? `${psp} refused the session: ${reason}` : `${psp}: ${reason}`;
    return new PspRefusalError(message, { cause: error });
  }
  return new PspOutageError(`${psp}: ${reason}`, { cause: error });
}

/** The HTTP status an SDK error carries as `statusCode` (as several PSP SDKs name it). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** An error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One call to a PSP, bounded by the PSP call budget (`withinPspBudget`), whose errors its adapter translates into
 * the closed set (`translate`, built on `pspFailure`).
 */
export async function translatedCall<T>(
  provider: string,
  request: () => Promise<T>,
  translate: (error: unknown) => PspFailure,
): Promise<T> {
  try {
    return await withinPspBudget(provider, request);
  } catch (error) {
    throw translate(error);
  }
}
