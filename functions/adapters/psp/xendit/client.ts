import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';

/** Xendit's API origin, test and live alike (the key decides the mode). */
export const XENDIT_API_ORIGIN = 'https://api.xendit.co';

/** A non-2xx answer of Xendit: its HTTP status, `error_code` and `message`. */
export class XenditAnswerError extends Error {
  readonly statusCode: number;
  readonly errorCode: string | undefined;

  constructor(statusCode: number, errorCode: string | undefined, message: string) {
    super(errorCode ? `${errorCode}: ${message}` : message);
    this.name = 'XenditAnswerError';
    this.statusCode = statusCode;
    this.errorCode = errorCode;
  }
}

/**
 * Our own small HTTPS client of Xendit's REST API (docs/orchestration.md#xendit), used for every call:
 * `xendit-node` 7 has no Payment Sessions client (`/sessions`), and its refunds resolve a refund without its
 * `status` (its generated `Refund` model copies no `status`). HTTP Basic with the secret key and an empty password;
 * JSON both ways; each call is one try, bounded by the PSP call budget.
 */
export class XenditClient {
  private readonly authorization: string;
  private readonly origin: string;

  constructor(secretKey: string, apiUrl: string | undefined) {
    this.authorization = `Basic ${Buffer.from(`${secretKey}:`).toString('base64')}`;
    this.origin = (apiUrl ?? XENDIT_API_ORIGIN).replace(/\/$/, '');
  }

  /**
   * The JSON body of a 2xx answer; else `XenditAnswerError` (a network error or a timeout: as fetch throws).
   * `idempotencyKey` goes as Xendit's `idempotency-key` header.
   */
  async call<T>(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: object; idempotencyKey?: string } = {},
  ): Promise<T> {
    const { body, idempotencyKey } = options;
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        authorization: this.authorization,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(CALL_BUDGETS.psp.timeoutMs),
    });
    const answer = parsed(await response.text());
    if (response.ok && answer) return answer as T;
    const errorCode = typeof answer?.error_code === 'string' ? answer.error_code : undefined;
    const message = typeof answer?.message === 'string' ? answer.message : `HTTP ${response.status}`;
    // A 2xx without a JSON object is no answer we can use: an outage, as a 5xx is.
    throw new XenditAnswerError(response.ok ? 502 : response.status, errorCode, message);
  }
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
