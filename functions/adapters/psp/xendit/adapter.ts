import type { PspConnection } from '../../../domain/connection.ts';
import type { Amount } from '../../../domain/money.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../../domain/psp-rules.ts';
import {
  type Psp,
  type PspFailure,
  type PspNotification,
  PspOutageError,
  type PspRefundRequest,
  type PspRefundStatus,
  PspRefusalError,
  type PspSessionStatus,
  pspFailureOf,
  type SessionEnd,
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { EndsSessions, Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure, statusOf, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { XenditClient } from './client.ts';
import type { xendit } from './descriptor.ts';
import { verifiedXenditNotification } from './notifications.ts';

/** The Secrets Manager value of a Xendit connection's credentials (its descriptor's `credentials`). */
export type XenditCredentials = CredentialsOf<typeof xendit>;

/** What Xendit answers of a payment session (the fields we read). */
export interface XenditSession {
  payment_session_id: string;
  reference_id: string;
  status: string;
  amount: number;
  currency: string;
  payment_link_url?: string | null;
  payment_request_id?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** What Xendit answers of a refund (the fields we read). */
interface XenditRefund {
  id: string;
  status?: string;
  reference_id?: string;
  failure_code?: string | null;
  metadata?: Record<string, unknown> | null;
}

/** The country a session in each currency is made for: Xendit asks both, and each currency is one country's. */
export const XENDIT_COUNTRIES: Readonly<Record<string, string>> = {
  IDR: 'ID',
  PHP: 'PH',
  THB: 'TH',
  VND: 'VN',
  MYR: 'MY',
  SGD: 'SG',
};

/**
 * Indonesia's banks whose virtual accounts Xendit's page offers (`bank_transfer`): the descriptor's one word
 * `VIRTUAL_ACCOUNT` is a channel code per bank.
 */
const VIRTUAL_ACCOUNTS = [
  'BCA_VIRTUAL_ACCOUNT',
  'BNI_VIRTUAL_ACCOUNT',
  'BRI_VIRTUAL_ACCOUNT',
  'MANDIRI_VIRTUAL_ACCOUNT',
  'PERMATA_VIRTUAL_ACCOUNT',
  'BSI_VIRTUAL_ACCOUNT',
];

/** Our methods as Xendit's channel codes (`allowed_payment_channels`), each once; null: every channel. */
export function xenditChannels(
  descriptor: typeof xendit,
  methods: SessionRequest['paymentMethods'],
): string[] | null {
  if (!methods) return null;
  const words = methods.flatMap((method) => descriptor.methods[method] ?? []);
  return [...new Set(words.flatMap((word) => (word === 'VIRTUAL_ACCOUNT' ? VIRTUAL_ACCOUNTS : [word])))];
}

/**
 * The buyer's language as Xendit's page takes it, an ISO 639-1 code (`id` of `id-ID`); none for a language without
 * one (`fil`), whose page then speaks Xendit's default.
 */
function xenditLocale(locale: string): { locale?: string } {
  const language = locale.split('-')[0]?.toLowerCase() ?? '';
  return /^[a-z]{2}$/.test(language) ? { locale: language } : {};
}

/**
 * An amount as Xendit reads it back (a JSON number in major units) in our decimal form, or null when it is none
 * Xendit could have charged (more decimals than it takes in that currency): never taken as paid.
 */
export function xenditAmountOf(descriptor: typeof xendit, value: unknown, currency: unknown): Amount | null {
  if (typeof value !== 'number' || typeof currency !== 'string') return null;
  const text = String(value);
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  try {
    const code = currency.toUpperCase();
    return fromPspMinorUnits(
      descriptor.amounts,
      pspMinorUnits(descriptor.amounts, { value: text, currency: code }),
      code,
    );
  } catch {
    return null;
  }
}

/**
 * Xendit's Payment Sessions in `PAYMENT_LINK` mode (docs/orchestration.md#xendit), through our own HTTPS client
 * (`XenditClient`: `xendit-node` 7 has no sessions and drops a refund's status). A session is one attempt, our
 * payment id its `reference_id`; it can be canceled while `ACTIVE` (`EndsSessions`); its success is read back with
 * `GET /sessions/{id}`, at the session's amount and currency.
 */
export class XenditPsp extends ConnectedPsp<typeof xendit> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin: string;
  /**
   * Xendit takes an `idempotency-key` on refunds but its fragments state no window: a refund whose answer was lost
   * is never asked again (its `refund.*` notification, which names our refund id, settles it).
   */
  readonly idempotencyWindowMs = 0;
  private readonly client: XenditClient;
  private readonly callbackToken: string;
  private readonly livemode: boolean;

  constructor(
    descriptor: typeof xendit,
    credentials: XenditCredentials,
    connection: PspConnection,
    apiUrl?: string,
  ) {
    super(descriptor, connection);
    this.client = new XenditClient(credentials.secret_key, apiUrl);
    this.callbackToken = credentials.callback_token;
    this.livemode = connection.mode === 'live';
    this.checkoutOrigin = this.livemode ? 'https://checkout.xendit.co' : 'https://checkout-staging.xendit.co';
  }

  /**
   * `POST /sessions` (`session_type` PAY, `mode` PAYMENT_LINK). Refused without a call: an amount Xendit cannot
   * take (a currency it does not, rupiah with decimals).
   */
  async createSession(request: SessionRequest): Promise<PspSession> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const { link, paymentId, amount } = request;
    const channels = xenditChannels(this.descriptor, request.paymentMethods);
    const session = await this.call('session', () =>
      this.client.call<XenditSession>('POST', '/sessions', {
        body: {
          reference_id: paymentId,
          session_type: 'PAY',
          mode: 'PAYMENT_LINK',
          amount: Number(amount.value),
          currency: amount.currency,
          country: XENDIT_COUNTRIES[amount.currency],
          expires_at: request.expiresAt.toISOString(),
          success_return_url: request.successUrl,
          cancel_return_url: request.cancelUrl,
          ...xenditLocale(request.locale),
          metadata: { link_id: link.id, payment_id: paymentId, mode: link.mode },
          ...(link.description ? { description: link.description.slice(0, 1000) } : {}),
          ...(channels ? { allowed_payment_channels: channels } : {}),
        },
      }),
    );
    if (!session.payment_link_url) {
      throw new PspOutageError(`Xendit made ${session.payment_session_id} without a payment_link_url`);
    }
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: paymentId,
      id: session.payment_session_id,
      url: session.payment_link_url,
      expires_at: request.expiresAt.toISOString(),
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    return verifiedXenditNotification(rawBody, headers, this.callbackToken, this.livemode);
  }

  /**
   * `GET /sessions/{id}`: what Xendit says of the session, at its amount and currency (a PAY session is paid
   * whole or not at all). Its mode is the key's: a test key reads test sessions only.
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const path = `/sessions/${encodeURIComponent(sessionId)}`;
    const session = await this.call('lookup', () => this.client.call<XenditSession>('GET', path));
    const ours = session.metadata ?? {};
    const state = stateOf(session.status);
    return {
      id: session.payment_session_id,
      paymentId: typeof ours.payment_id === 'string' ? ours.payment_id : session.reference_id,
      linkId: typeof ours.link_id === 'string' ? ours.link_id : null,
      state,
      failure:
        state === 'expired'
          ? { code: 'expired', message: 'The Xendit session expired.' }
          : state === 'canceled'
            ? { code: 'canceled', message: 'The Xendit session was canceled.' }
            : null,
      // What a refund names (`POST /refunds` takes the payment request).
      paymentReference: session.payment_request_id ?? null,
      amount: xenditAmountOf(this.descriptor, session.amount, session.currency),
      livemode: this.livemode,
    };
  }

  /**
   * `POST /sessions/{id}/cancel`: its page can no longer be paid. Xendit refuses (422 `INVALID_SESSION_STATUS`)
   * a session no longer `ACTIVE`: completed, expired or already canceled, which the caller reads.
   */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    const path = `/sessions/${encodeURIComponent(session.id)}/cancel`;
    try {
      await this.call('end', () => this.client.call<XenditSession>('POST', path));
      return 'ended';
    } catch (error) {
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /**
   * `POST /refunds` of the session's payment request, our refund id as `reference_id` and `idempotency-key`, our
   * ids in `metadata`. Xendit's 4xx answers are refusals (`isRefusalStatus`: more than remains, a channel that
   * refunds nothing or nothing in part, a refund of it still pending).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const refund = await this.call('refund', () =>
      this.client.call<XenditRefund>('POST', '/refunds', {
        idempotencyKey: request.refundId,
        body: {
          payment_request_id: request.paymentReference,
          reference_id: request.refundId,
          amount: Number(request.amount.value),
          currency: request.amount.currency,
          reason: 'REQUESTED_BY_CUSTOMER',
          metadata: { refund_id: request.refundId, link_id: request.linkId },
        },
      }),
    );
    return refundStatus(refund);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const path = `/refunds/${encodeURIComponent(reference)}`;
    return refundStatus(await this.call('lookup', () => this.client.call<XenditRefund>('GET', path)));
  }

  /** One call, bounded by the PSP call budget, its failure in the closed set (`pspFailure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall('Xendit', request, (error) => this.failure(error, operation));
  }

  /**
   * 401 and 403 are a refused key (a refund's 403 is Xendit refusing the refund itself: `REFUND_NOT_SUPPORTED`);
   * a session is refused by a 4xx of its validation (400), a customer or reference it will not take (404, 409);
   * an end by 422 (no longer `ACTIVE`); no answer, a timeout, a 5xx and 429 are Xendit failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = statusOf(error);
    const refundRefused = operation === 'refund' && status === 403;
    return pspFailure(error, operation, {
      psp: 'Xendit',
      status: refundRefused ? 400 : status,
      reason: messageOf(error),
      refusal: operation === 'end' ? status === 422 : status === 400 || status === 404 || status === 409,
    });
  }
}

/** Xendit's session status as ours: a declined attempt leaves it `ACTIVE`, its buyer may try again. */
function stateOf(status: string): PspSessionStatus['state'] {
  switch (status) {
    case 'COMPLETED':
      return 'succeeded';
    case 'EXPIRED':
      return 'expired';
    case 'CANCELED':
      return 'canceled';
    default:
      return 'pending';
  }
}

function refundStatus(refund: XenditRefund): PspRefundStatus {
  const ours = refund.metadata ?? {};
  const state =
    refund.status === 'SUCCEEDED'
      ? 'succeeded'
      : refund.status === 'FAILED' || refund.status === 'CANCELLED'
        ? 'failed'
        : 'pending';
  return {
    reference: refund.id,
    refundId: typeof ours.refund_id === 'string' ? ours.refund_id : (refund.reference_id ?? null),
    linkId: typeof ours.link_id === 'string' ? ours.link_id : null,
    state,
    failureMessage:
      state === 'failed' ? `Xendit: the refund ${refund.failure_code ?? refund.status?.toLowerCase()}` : null,
  };
}

/** Xendit for each connection whose credentials are stored under its `secret_name`; `XENDIT_API_URL` points it elsewhere. */
export function createFactory(runtime: PspRuntime, descriptor: typeof xendit) {
  return storedCredentialsFactory(
    descriptor,
    runtime.secrets,
    async (credentials, connection) => new XenditPsp(descriptor, credentials, connection, runtime.apiUrl),
  );
}
