import { BoundedCache } from '../../bounded-cache.ts';
import { CALL_BUDGETS, worstCaseMs } from '../../domain/call-budgets.ts';
import type { Provider, PspConnection } from '../../domain/connection.ts';
import { PspNotConfiguredError } from '../../domain/errors.ts';
import type { Mode } from '../../domain/principal.ts';
import {
  isRefusalStatus,
  type Psp,
  PspCredentialsRejectedError,
  type PspFactory,
  type PspFailure,
  PspOutageError,
  PspRefusalError,
  pspFailureOf,
} from '../../ports/psp.ts';
import type { SecretStore } from '../../ports/secret-store.ts';

/** A PSP call that got no answer within its budget: the PSP counts as unavailable (a failover at checkout). */
export class PspCallTimeoutError extends PspOutageError {
  constructor(provider: string, ms: number) {
    super(`${provider} did not answer within ${ms} ms`);
    this.name = 'PspCallTimeoutError';
  }
}

/**
 * Bounds one call through a PSP SDK by `CALL_BUDGETS.psp`, whatever the SDK itself does: Mollie's client has no
 * timeout and retries 5xx answers twice after 2 s, and Adyen's times out only an idle socket. The call is
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
  /** The PSP's name as merchants know it ("Stripe"), which starts every message. */
  psp: string;
  /** The HTTP status the PSP answered with; undefined when none came (no answer, a network error). */
  status: number | undefined;
  /** The PSP's own reason, without the SDK's decoration. */
  reason: string;
  /**
   * For a `session` or an `end`: the PSP's answer that it will not do this (its validation answer to a
   * session, Stripe's `invalid_request_error`, Mollie's and Adyen's 400 or 422; its refusal to end one).
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

/** The HTTP status an SDK error carries as `statusCode` (Mollie's and Adyen's SDKs, Stripe's). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** An error's message, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The factory of a provider whose connections keep their credentials in the secret store (Stripe, Mollie,
 * Adyen): `parse` checks credentials for shape and mode, both when they are stored (`checkCredentials`) and each
 * time an adapter is built from them (`connectionCredentials`); `build` makes the adapter. Each connection's
 * adapter lasts as long as the credentials it was built with (`ConnectionAdapters`).
 */
export abstract class StoredCredentialsPspFactory<C> implements PspFactory {
  abstract readonly provider: Provider;
  readonly testModeOnly = false;
  private readonly adapters: ConnectionAdapters;
  /** Where the SDK sends its calls instead of the PSP's own origin (tests: a PSP-speaking server). */
  protected readonly apiUrl: string | undefined;

  constructor(options: { secrets: SecretStore; apiUrl?: string | undefined }) {
    this.adapters = new ConnectionAdapters(options.secrets);
    this.apiUrl = options.apiUrl;
  }

  /** The credentials, typed; throws an `Error` saying what is wrong unless they are this provider's, of `mode`. */
  protected abstract parse(credentials: unknown, mode: Mode): C;

  /** The adapter of `connection` with its checked credentials (the PSP's SDK loaded here, on first use). */
  protected abstract build(credentials: C, connection: PspConnection): Promise<Psp>;

  checkCredentials(credentials: unknown, mode: Mode): void {
    this.parse(credentials, mode);
  }

  create(connection: PspConnection): Promise<Psp> {
    return this.adapters.get(connection, (raw) =>
      this.build(
        connectionCredentials(connection, raw, (credentials, mode) => this.parse(credentials, mode)),
        connection,
      ),
    );
  }
}

/**
 * The adapters of one provider's connections, each rebuilt as soon as its stored credentials change: the
 * secret is read on every `create` (the SecretStore keeps it in memory for at most `SECRETS_CACHE_SECONDS`,
 * 5 minutes at most), so a rotated key or notification secret is in use within 5 minutes, never only when the
 * container is recycled (docs/orchestration.md#rotating-credentials).
 */
class ConnectionAdapters {
  private readonly secrets: SecretStore;
  private readonly adapters = new Map<string, { credentials: string; psp: Promise<Psp> }>();

  constructor(secrets: SecretStore) {
    this.secrets = secrets;
  }

  async get(
    connection: PspConnection,
    build: (credentials: string | undefined) => Promise<Psp>,
  ): Promise<Psp> {
    const credentials = connection.secret_name ? await this.secrets.get(connection.secret_name) : undefined;
    const key = `${connection.id}/${connection.mode}`;
    const cached = this.adapters.get(key);
    if (cached && credentials !== undefined && cached.credentials === credentials) return cached.psp;
    const psp = build(credentials);
    if (credentials !== undefined) {
      this.adapters.set(key, { credentials, psp });
      psp.catch(() => {
        if (this.adapters.get(key)?.psp === psp) this.adapters.delete(key);
      });
    }
    return psp;
  }
}

/**
 * A connection's stored credentials, parsed and checked by its provider's `check` for shape and mode. They are
 * checked again here, not only when stored: a key of the other mode, or one replaced in the secret store by
 * hand, never serves the connection. Anything wrong makes it unable to serve (`PspNotConfiguredError`).
 */
function connectionCredentials<T>(
  connection: PspConnection,
  raw: string | undefined,
  check: (credentials: unknown, mode: PspConnection['mode']) => T,
): T {
  try {
    return check(parseCredentials(raw), connection.mode);
  } catch (error) {
    const provider = connection.provider.charAt(0).toUpperCase() + connection.provider.slice(1);
    throw new PspNotConfiguredError(`${provider} connection ${connection.id}: ${(error as Error).message}`);
  }
}

/** Parses a connection's stored credentials JSON; undefined when absent or not a JSON object. */
function parseCredentials(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Facts a PSP stated in a notification that verified, kept for the `retrieveSession` / `retrieveRefund` that
 * the same invocation makes right after, when the PSP has no API to fetch them (Adyen) or to spare a second
 * fetch of what was just fetched (Mollie). Bounded, and each fact is short-lived.
 */
export class RecentFacts<T> {
  private readonly facts: BoundedCache<string, { value: T; at: number }>;
  private readonly maxAgeMs: number;

  constructor(options: { maxAgeMs: number; maxSize: number }) {
    this.facts = new BoundedCache(options.maxSize);
    this.maxAgeMs = options.maxAgeMs;
  }

  set(key: string, value: T): void {
    this.facts.set(key, { value, at: Date.now() });
  }

  get(key: string): T | undefined {
    // Read without refreshing: a fact ages from when it was learnt, and the oldest learnt goes first.
    const fact = this.facts.peek(key);
    if (!fact) return undefined;
    if (Date.now() - fact.at > this.maxAgeMs) {
      this.facts.delete(key);
      return undefined;
    }
    return fact.value;
  }

  take(key: string): T | undefined {
    const value = this.get(key);
    this.facts.delete(key);
    return value;
  }
}

/**
 * One call to a PSP, bounded by the PSP call budget (`withinPspBudget`), whose errors its adapter translates into
 * the closed set (`translate`, built on `pspFailure`).
 */
export async function translatedCall<T>(
  provider: Provider,
  request: () => Promise<T>,
  translate: (error: unknown) => PspFailure,
): Promise<T> {
  try {
    return await withinPspBudget(provider, request);
  } catch (error) {
    throw translate(error);
  }
}
