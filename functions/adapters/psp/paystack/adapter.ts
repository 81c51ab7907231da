import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
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
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure, statusOf, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { PaystackClient } from './client.ts';
import type { paystack } from './descriptor.ts';
import { verifiedPaystackNotification } from './notifications.ts';

/** The Secrets Manager value of a Paystack connection's credentials (its descriptor's `credentials`). */
export type PaystackCredentials = CredentialsOf<typeof paystack>;

/** What `GET /transaction/verify/{reference}` answers of a transaction (the fields we read). */
interface PaystackTransaction {
  id: number;
  domain: string;
  status: string;
  reference: string;
  amount: number;
  currency: string;
  gateway_response: string;
  metadata: unknown;
  /** What Paystack kept of it, in subunits: null until it succeeded. */
  fees?: number | null;
}

/** What `POST /refund` and `GET /refund/{id}` answer of a refund (the fields we read). */
interface PaystackRefund {
  id: number;
  status: string;
  merchant_note: string;
}

/**
 * Our payment id as a Paystack `reference`, which takes only letters, digits, `-`, `.` and `=`: `pay_…` is
 * `pay-…`. The same payment always gets the same reference, so an initialize retried after a lost answer is
 * refused by Paystack as a duplicate, never made twice.
 */
export const paystackReference = (paymentId: string): string => paymentId.replace('_', '-');

/**
 * Paystack's Standard checkout (docs/orchestration.md#paystack), through our own HTTPS client (`PaystackClient`:
 * the SDK cannot be pointed elsewhere, bounded, or tell a refusal from an outage). A session is a transaction
 * initialized with our reference; it cannot be ended (no `EndsSessions`), so the checkout shows it again while it
 * may be paid, and its success is read back with `GET /transaction/verify/{reference}` before it is taken.
 */
export class PaystackPsp extends ConnectedPsp<typeof paystack> implements Psp, Refunds {
  readonly checkoutOrigin = 'https://checkout.paystack.com';
  /** Paystack takes no idempotency key: a refund whose answer was lost is never asked again. */
  readonly idempotencyWindowMs = 0;
  private readonly client: PaystackClient;
  private readonly secretKey: string;
  private readonly livemode: boolean;

  constructor(
    descriptor: typeof paystack,
    credentials: PaystackCredentials,
    connection: PspConnection,
    apiUrl?: string,
  ) {
    super(descriptor, connection);
    this.client = new PaystackClient(credentials.secret_key, apiUrl);
    this.secretKey = credentials.secret_key;
    this.livemode = connection.mode === 'live';
  }

  /**
   * `POST /transaction/initialize`. Refused without a call: an amount Paystack cannot take, or no e-mail of the
   * buyer (which our page asks first, the descriptor's `needs`; a prefilled one from the link's address serves too).
   */
  async createSession(request: SessionRequest): Promise<PspSession> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const email = request.buyer?.email ?? request.references?.prefilled_email;
    if (!email) throw new PspRefusalError('Paystack takes no payment without the buyer’s e-mail address.');
    const { link, paymentId } = request;
    const channels = request.paymentMethods?.flatMap((method) => this.descriptor.methods[method] ?? []);
    const answer = await this.call('session', () =>
      this.client.call<{ authorization_url: string; reference: string }>('POST', '/transaction/initialize', {
        email,
        amount: Number(pspMinorUnits(this.descriptor.amounts, request.amount)),
        currency: request.amount.currency,
        reference: paystackReference(paymentId),
        // Its one return address: Paystack appends `trxref` and `reference`; a buyer who cancels goes to `cancel_action`.
        callback_url: request.successUrl,
        metadata: {
          link_id: link.id,
          payment_id: paymentId,
          mode: link.mode,
          cancel_action: request.cancelUrl,
        },
        ...(channels ? { channels: [...new Set(channels)] } : {}),
      }),
    );
    if (!answer.authorization_url) {
      throw new PspOutageError(`Paystack initialized ${answer.reference} without an authorization_url`);
    }
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: paymentId,
      id: answer.reference,
      url: answer.authorization_url,
      expires_at: request.expiresAt.toISOString(),
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    return verifiedPaystackNotification(rawBody, headers, this.secretKey, this.livemode);
  }

  /** `GET /transaction/verify/{reference}`: what Paystack says of the transaction, its amount and currency. */
  async retrieveSession(reference: string): Promise<PspSessionStatus> {
    const path = `/transaction/verify/${encodeURIComponent(reference)}`;
    const transaction = await this.call('lookup', () => this.client.call<PaystackTransaction>('GET', path));
    if ((transaction.domain === 'live') !== this.livemode) {
      throw new InvalidNotificationError('A Paystack transaction of the other mode.');
    }
    const ours = metadataOf(transaction.metadata);
    const state = stateOf(transaction.status);
    return {
      id: transaction.reference,
      paymentId: ours.payment_id ?? null,
      linkId: ours.link_id ?? null,
      state,
      failure:
        state === 'failed'
          ? { code: 'declined', message: `Paystack: ${transaction.gateway_response || 'declined'}` }
          : null,
      paymentReference: transaction.reference,
      amount: fromPspMinorUnits(this.descriptor.amounts, transaction.amount, transaction.currency),
      livemode: transaction.domain === 'live',
      ...(state === 'succeeded' && typeof transaction.fees === 'number'
        ? { fee: { fee: fromPspMinorUnits(this.descriptor.amounts, transaction.fees, transaction.currency) } }
        : {}),
    };
  }

  /**
   * `POST /refund` of the transaction (its reference), our ids in `merchant_note` (a refund takes no metadata).
   * Paystack's 4xx answers are refusals (`isRefusalStatus`: fully reversed, more than what remains).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const refund = await this.call('refund', () =>
      this.client.call<PaystackRefund>('POST', '/refund', {
        transaction: request.paymentReference,
        amount: Number(pspMinorUnits(this.descriptor.amounts, request.amount)),
        currency: request.amount.currency,
        merchant_note: `${request.refundId} ${request.linkId}`,
      }),
    );
    return refundStatus(refund);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const path = `/refund/${encodeURIComponent(reference)}`;
    return refundStatus(await this.call('lookup', () => this.client.call<PaystackRefund>('GET', path)));
  }

  /** One call, bounded by the PSP call budget, its failure in the closed set (`pspFailure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall('Paystack', request, (error) => this.failure(error, operation));
  }

  /**
   * 401 and 403 are a refused key; a session is refused by Paystack's 400 (an amount, a currency, an e-mail it
   * will not take; a duplicate reference); a refund by any 4xx but those that leave it open; no answer, a
   * timeout, 5xx and 429 are Paystack failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = statusOf(error);
    return pspFailure(error, operation, {
      psp: 'Paystack',
      status,
      reason: messageOf(error),
      refusal: status === 400 || status === 422,
    });
  }
}

/** Paystack's transaction status as ours: `abandoned` (not paid yet) and those in flight may still be paid. */
function stateOf(status: string): PspSessionStatus['state'] {
  switch (status) {
    case 'success':
    // Paid, then given back (a refund or reversal is a refund's own business, not the attempt's).
    case 'reversed':
      return 'succeeded';
    case 'failed':
      return 'failed';
    default:
      return 'pending';
  }
}

/** Our ids as the transaction echoes them: `metadata` is an object, or the same as a JSON string. */
function metadataOf(metadata: unknown): { link_id?: string; payment_id?: string } {
  let value = metadata;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (value === null || typeof value !== 'object') return {};
  const { link_id, payment_id } = value as Record<string, unknown>;
  return {
    ...(typeof link_id === 'string' ? { link_id } : {}),
    ...(typeof payment_id === 'string' ? { payment_id } : {}),
  };
}

function refundStatus(refund: PaystackRefund): PspRefundStatus {
  const state =
    refund.status === 'processed' ? 'succeeded' : refund.status === 'failed' ? 'failed' : 'pending';
  return {
    reference: String(refund.id),
    refundId: /\bre_[0-9A-Za-z]+/.exec(refund.merchant_note ?? '')?.[0] ?? null,
    linkId: /\bpl_[0-9A-Za-z]+/.exec(refund.merchant_note ?? '')?.[0] ?? null,
    state,
    failureMessage: state === 'failed' ? `Paystack: the refund ${refund.status}` : null,
  };
}

/** Paystack for each connection whose credentials are stored under its `secret_name`; `PAYSTACK_API_URL` points it elsewhere. */
export function createFactory(runtime: PspRuntime, descriptor: typeof paystack) {
  return storedCredentialsFactory(
    descriptor,
    runtime.secrets,
    async (credentials, connection) => new PaystackPsp(descriptor, credentials, connection, runtime.apiUrl),
  );
}
