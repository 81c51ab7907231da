import type { Square, SquareClient } from 'square';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { amountProblem } from '../../../domain/psp-rules.ts';
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
import { messageOf, type PspOperation, pspFailure, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import type { square } from './descriptor.ts';
import { squareNotification, validSquareSignature } from './notifications.ts';
import {
  acceptedMethods,
  amountOf,
  feeOf,
  lastPaymentIdOf,
  partsOf,
  paymentStateOf,
  refundReason,
  refundStatusOf,
  sessionEndOf,
  sessionIdOf,
  squareMoney,
  squareOrder,
  unpaidStateOf,
} from './wire.ts';

/** The secret store's value of a Square connection's credentials (its descriptor's `credentials`). */
export type SquareCredentials = CredentialsOf<typeof square>;

/** The `square` module's exports the adapter uses, loaded by the factory only when a connection uses Square. */
export interface SquareSdk {
  SquareClient: typeof SquareClient;
  SquareError: typeof import('square').SquareError;
}

/** Where a connection's calls go and where its notifications come to. */
export interface SquareEndpoints {
  /** `SQUARE_API_URL` (its fake); else Square's production or sandbox host, by the connection's mode. */
  apiUrl: string | undefined;
  /** The notification address as subscribed at Square, which its signature covers. */
  notificationUrl: string;
}

const HOSTS = { live: 'https://connect.squareup.com', test: 'https://connect.squareupsandbox.com' };
const PAGES = { live: 'https://square.link', test: 'https://sandbox.square.link' };

/** The outcome of a call of Square's is open: a failure of Square's, never taken as its answer. */
const invalidAnswer = (what: string) => new PspOutageError(`Square answered ${what}`);

export class SquarePsp extends ConnectedPsp<typeof square> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin: string;
  /**
   * Square promises no window for its idempotency keys ("a period of time"): an hour is assumed
   * (docs/orchestration.md#square).
   */
  readonly idempotencyWindowMs = 3_600_000;
  /**
   * A session is read back in two calls (its order, then the payment its tender names), one more than a
   * notification's budget counts for a session's read (`NOTIFICATION_PSP_CALLS`): counted here, so that the
   * link's pending refunds read after it keep within that budget.
   */
  readonly verificationCalls = 1;
  private readonly sdk: SquareSdk;
  private readonly client: SquareClient;
  private readonly credentials: SquareCredentials;
  private readonly notificationUrl: string;
  private readonly now: () => Date;

  constructor(
    descriptor: typeof square,
    sdk: SquareSdk,
    credentials: SquareCredentials,
    connection: PspConnection,
    endpoints: SquareEndpoints,
    now: () => Date = () => new Date(),
  ) {
    super(descriptor, connection);
    this.sdk = sdk;
    this.credentials = credentials;
    this.notificationUrl = endpoints.notificationUrl;
    this.now = now;
    this.checkoutOrigin = endpoints.apiUrl ? new URL(endpoints.apiUrl).origin : PAGES[connection.mode];
    this.client = new sdk.SquareClient({
      token: credentials.access_token,
      baseUrl: endpoints.apiUrl?.replace(/\/+$/, '') ?? HOSTS[connection.mode],
      timeoutInSeconds: CALL_BUDGETS.psp.timeoutMs / 1000,
      // Our budget decides retries (one try), not the SDK's two with back-off.
      maxRetries: CALL_BUDGETS.psp.tries - 1,
    });
  }

  private get livemode(): boolean {
    return this.connection.mode === 'live';
  }

  /**
   * A payment link whose order charges exactly `request.amount` (its lines, or one line at it), our payment id as
   * the idempotency key and the order's `reference_id`, the buyer sent back to `successUrl` once Square has the
   * payment. An order whose total Square reckons otherwise is deleted and refused: it would charge another amount.
   */
  async createSession(request: SessionRequest): Promise<PspSession> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const methods = acceptedMethods(this.descriptor, request.paymentMethods);
    const created = await this.call('session', () =>
      this.client.checkout.paymentLinks.create({
        idempotencyKey: request.paymentId,
        order: squareOrder(this.descriptor, request, this.credentials.location_id),
        checkoutOptions: {
          redirectUrl: request.successUrl,
          ...(methods ? { acceptedPaymentMethods: methods } : {}),
        },
        ...(request.references?.prefilled_email
          ? { prePopulatedData: { buyerEmail: request.references.prefilled_email } }
          : {}),
        paymentNote: `${request.paymentId} (${request.link.id})`,
      }),
    );
    const link = created.paymentLink;
    if (!link?.id || !link.url || !link.orderId)
      throw invalidAnswer('a payment link without its id, url or order');
    const total = amountOf(
      this.descriptor,
      created.relatedResources?.orders?.find(({ id }) => id === link.orderId)?.totalMoney,
    );
    if (total && (total.value !== request.amount.value || total.currency !== request.amount.currency)) {
      await this.expireSession({ id: sessionIdOf(link.id, link.orderId) }).catch(() => undefined);
      throw new PspRefusalError(
        `Square reckons the order at ${total.value} ${total.currency}, not ${request.amount.value} ${request.amount.currency}.`,
      );
    }
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: request.paymentId,
      id: sessionIdOf(link.id, link.orderId),
      url: link.url,
      expires_at: request.expiresAt.toISOString(),
    };
  }

  /**
   * `x-square-hmacsha256-signature` must be the HMAC of the connection's notification address and the raw body
   * with its signature key (or the previous one while a rotation overlaps); a payment event names its order, a
   * refund event its refund, each then read back.
   */
  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const keys = [this.credentials.signature_key, this.credentials.previous_signature_key].filter(
      (key): key is string => key !== undefined,
    );
    if (
      !validSquareSignature(this.notificationUrl, rawBody, headers['x-square-hmacsha256-signature'], keys)
    ) {
      throw new InvalidNotificationError('A Square notification whose signature does not verify.');
    }
    return [squareNotification(rawBody, this.livemode)];
  }

  /**
   * The order, then the payment its last tender names: the payment's state and amount (`amount_money`, without
   * a tip), our ids from the order. An order nobody paid whose session is over (our `expires_at`) is ended
   * here, its link deleted, since Square's links never lapse by themselves.
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const { linkId, orderId } = partsOf(sessionId);
    const order = (await this.call('lookup', () => this.client.orders.get({ orderId }))).order;
    if (order?.id !== orderId) throw invalidAnswer(`no order ${orderId}`);
    const paymentId = lastPaymentIdOf(order);
    const payment = paymentId
      ? (await this.call('lookup', () => this.client.payments.get({ paymentId }))).payment
      : undefined;
    if (paymentId && payment?.orderId !== orderId)
      throw invalidAnswer(`payment ${paymentId} of another order`);
    const ended = !payment && order.state === 'OPEN' && (await this.endLapsed(linkId, order));
    const fee = payment && feeOf(this.descriptor, payment);
    return {
      id: sessionId,
      paymentId: order.referenceId ?? order.metadata?.payment_id ?? null,
      linkId: order.metadata?.link_id ?? null,
      ...(payment ? paymentStateOf(this.descriptor, payment) : unpaidStateOf(order, ended)),
      paymentReference: payment?.id ?? null,
      amount: amountOf(this.descriptor, payment ? payment.amountMoney : order.totalMoney),
      livemode: this.livemode,
      ...(fee ? { fee } : {}),
    };
  }

  /** Deletes the link of an unpaid order whose session is over; whether it is now ended. */
  private async endLapsed(linkId: string | undefined, order: Square.Order): Promise<boolean> {
    const end = sessionEndOf(order);
    if (!linkId || end === undefined || end > this.now().getTime()) return false;
    return (await this.expireSession({ id: sessionIdOf(linkId, order.id as string) })) === 'ended';
  }

  /**
   * Deletes the payment link (Square cancels its order). A link Square no longer has, or will not delete, is
   * `refused`: the caller reads the session back to learn whether it was paid.
   */
  async expireSession(session: Pick<PspSession, 'id'>): Promise<SessionEnd> {
    const { linkId } = partsOf(session.id);
    if (!linkId) return 'refused';
    try {
      await this.call('end', () => this.client.checkout.paymentLinks.delete({ id: linkId }));
      return 'ended';
    } catch (error) {
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /**
   * `POST /v2/refunds` of the payment, our refund id as the idempotency key (45 characters at most: ours are
   * shorter), our ids in its `reason`, Square keeping no metadata on refunds.
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const answer = await this.call('refund', () =>
      this.client.refunds.refundPayment({
        idempotencyKey: request.refundId,
        paymentId: request.paymentReference,
        amountMoney: squareMoney(this.descriptor, request.amount),
        reason: refundReason(request.refundId, request.linkId),
      }),
    );
    if (!answer.refund?.id) throw invalidAnswer('a refund without its id');
    return refundStatusOf(answer.refund);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const answer = await this.call('lookup', () => this.client.refunds.get({ refundId: reference }));
    if (answer.refund?.id !== reference) throw invalidAnswer(`no refund ${reference}`);
    return refundStatusOf(answer.refund);
  }

  /** One call to Square, within the PSP call budget, its errors translated (`failure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall(this.descriptor.displayName, request, (error) => this.failure(error, operation));
  }

  /**
   * Square's errors (`SquareError`: its status and `errors[]`) in the closed set: a session or an end is refused by
   * a 400 or 404 (`INVALID_REQUEST_ERROR`: a currency its location does not take, a link it no longer has), a
   * refund by a 4xx but an idempotency key reused with another body (the outcome of the first is open); no
   * answer (`SquareTimeoutError`, a network error), 429 and 5xx are Square failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const squareError = error instanceof this.sdk.SquareError ? error : undefined;
    const first = squareError?.errors[0];
    const status = squareError?.statusCode;
    return pspFailure(error, operation, {
      psp: this.descriptor.displayName,
      status,
      reason: first ? `${first.code}${first.detail ? `: ${first.detail}` : ''}` : messageOf(error),
      refusal: status === 400 || status === 404 || status === 422,
      inProgress: first?.code === 'IDEMPOTENCY_KEY_REUSED',
    });
  }
}

/**
 * Square for each connection whose credentials are stored under its `secret_name`; `SQUARE_API_URL` points the
 * SDK at a Square-speaking server. The SDK is loaded on the first connection built, not with this module.
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof square) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const { SquareClient, SquareError } = await import('square');
    return new SquarePsp(
      descriptor,
      { SquareClient, SquareError },
      credentials,
      connection,
      {
        apiUrl: runtime.apiUrl,
        notificationUrl: `${runtime.baseUrl}/psp/${descriptor.id}/notifications/${connection.id}`,
      },
      runtime.now,
    );
  });
}
