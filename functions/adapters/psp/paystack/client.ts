import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';

/** Paystack's API origin, test and live alike (the key decides the mode). */
export const PAYSTACK_API_ORIGIN = 'https://api.paystack.co';

/** An answer of Paystack that is not `{status: true, data}`: its HTTP status and its `message`. */
export class PaystackAnswerError extends Error {
  readonly statusCode: number;

  constructor(statusCode: number, message: string) {
    super(message);
    this.name = 'PaystackAnswerError';
    this.statusCode = statusCode;
  }
}

/**
 * Our own small HTTPS client of Paystack's REST API, used instead of `@paystack/paystack-sdk`
 * (docs/orchestration.md#paystack): the SDK's origin is fixed (no `PAYSTACK_API_URL`), it has no timeout, and it
 * resolves every non-2xx answer, losing the HTTP status that tells a refused key (401) from a refusal (400) and an
 * outage (5xx). Each call is one try, bounded by the PSP call budget; JSON both ways; every answer is Paystack's
 * envelope `{status, message, data}`.
 */
export class PaystackClient {
  private readonly secretKey: string;
  private readonly origin: string;

  constructor(secretKey: string, apiUrl: string | undefined) {
    this.secretKey = secretKey;
    this.origin = (apiUrl ?? PAYSTACK_API_ORIGIN).replace(/\/$/, '');
  }

  /** `data` of a `{status: true}` answer; else `PaystackAnswerError` (a network error or a timeout: as fetch throws). */
  async call<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.secretKey}`,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(CALL_BUDGETS.psp.timeoutMs),
    });
    const text = await response.text();
    const answer = parsed(text);
    if (response.ok && answer?.status === true && answer.data !== undefined) return answer.data as T;
    const message = typeof answer?.message === 'string' ? answer.message : `HTTP ${response.status}`;
    // A 2xx without the envelope is no answer we can use: an outage, as a 5xx is.
    throw new PaystackAnswerError(response.ok ? 502 : response.status, message);
  }
}

function parsed(text: string): { status?: unknown; message?: unknown; data?: unknown } | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}
