import type {
  Cashfree,
  CreateLinkRequest,
  LinkEntity,
  PaymentLinkOrderEntity,
  RefundEntity,
} from 'cashfree-pg';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
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
import type { cashfree } from './descriptor.ts';
import { cashfreeEvent, signedByCashfree } from './notifications.ts';
import {
  amountFromCashfree,
  CASHFREE_API_VERSION,
  CASHFREE_PAGE_ORIGIN,
  cashfreeAmount,
  cashfreeMethods,
  idempotencyKey,
  indiaTime,
  PLACEHOLDER_PHONE,
  refundOfReference,
  refundReference,
} from './wire.ts';

/** The Secrets Manager value of a Cashfree connection's credentials (its descriptor's `credentials`). */
export type CashfreeCredentials = CredentialsOf<typeof cashfree>;

/** The longest `return_url` a link takes; a longer one is left out and Cashfree shows its own receipt. */
const MAX_RETURN_URL = 250;

/** What each call hands axios: its own timeout, within the call budget that bounds the whole operation. */
const CALL_OPTIONS = { timeout: CALL_BUDGETS.psp.timeoutMs };

/**
 * Cashfree's Payment Links (docs/orchestration.md#cashfree), through the official `cashfree-pg` SDK. A link is our
 * session: made per attempt with our payment id as its `link_id` (Cashfree reads links by it), paid on
 * Cashfree's page at `link_url`, cancelled to end it early. A paid link's payment is its order (`CFPay_…`),
 * found through `GET /links/{link_id}/orders`: refunds are made on that order. Cashfree has no livemode flag: the
 * environment the connection's mode chose, and the secret of that environment that signs its webhooks, decide.
 */
export class CashfreePsp extends ConnectedPsp<typeof cashfree> implements Psp, EndsSessions, Refunds {
  readonly checkoutOrigin: string;
  /**
   * Cashfree states no retention of `x-idempotency-key`; our refund id is also its `refund_id`, unique at
   * Cashfree, whose repeat is read back instead (`refund`). A day is the figure we rely on.
   */
  readonly idempotencyWindowMs = 24 * 3_600_000;
  private readonly client: Cashfree;
  private readonly secret: string;

  /** `client` is built by the factory, with the connection's keys, its environment and our API version. */
  constructor(
    descriptor: typeof cashfree,
    client: Cashfree,
    credentials: CashfreeCredentials,
    connection: PspConnection,
  ) {
    super(descriptor, connection);
    this.client = client;
    this.secret = credentials.client_secret;
    this.checkoutOrigin = CASHFREE_PAGE_ORIGIN[connection.mode];
  }

  /**
   * Refuses (`PspRefusalError`), without calling Cashfree, an amount it cannot take and a link whose methods it
   * serves none of.
   */
  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const problem = amountProblem(this.descriptor.amounts, checkout.amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const methods = cashfreeMethods(this.descriptor, checkout.paymentMethods);
    if (methods === '') throw new PspRefusalError("Cashfree serves none of the link's payment methods.");
    const request = linkRequest(checkout, methods);
    const link = await this.call('session', async () => {
      const answer = await this.client.PGCreateLink(
        request,
        undefined,
        idempotencyKey(checkout.paymentId),
        CALL_OPTIONS,
      );
      return answer.data;
    });
    if (!link.link_url)
      throw new PspOutageError(`Cashfree returned link ${link.link_id} without its link_url`);
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: checkout.paymentId,
      url: link.link_url,
      expires_at: expiryOf(link, checkout.expiresAt),
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    if (!signedByCashfree(this.secret, rawBody, headers)) {
      throw new InvalidNotificationError('The x-webhook-signature header does not verify.');
    }
    const event = cashfreeEvent(rawBody);
    return [
      {
        type: event.type,
        sessionId: event.linkId,
        refundReference: event.refundReference,
        livemode: this.connection.mode === 'live',
      },
    ];
  }

  /**
   * The link, and when it is paid, its paid order: what was charged is that order's amount (the link's price;
   * a service fee the buyer paid on top, `payment_surcharge`, is the merchant's own choice at Cashfree). Both reads
   * are one call within the PSP call budget.
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const { link, order } = await this.call('lookup', async () => {
      const found = (await this.client.PGFetchLink(sessionId, undefined, undefined, CALL_OPTIONS)).data;
      return {
        link: found,
        order: found.link_status === 'PAID' ? await this.paidOrder(sessionId) : undefined,
      };
    });
    const notes = link.link_notes ?? {};
    const base = {
      id: sessionId,
      paymentId: isId('pay', notes.payment_id ?? '') ? (notes.payment_id as string) : null,
      linkId: isId('pl', notes.link_id ?? '') ? (notes.link_id as string) : null,
      livemode: this.connection.mode === 'live',
    };
    if (order) {
      return {
        ...base,
        state: 'succeeded',
        failure: null,
        paymentReference: order.order_id ?? null,
        amount: amountFromCashfree(order.order_amount, order.order_currency) ?? null,
      };
    }
    const amount = amountFromCashfree(link.link_amount, link.link_currency) ?? null;
    return { ...base, ...stateOf(link.link_status), paymentReference: null, amount };
  }

  /** The order Cashfree made of a link's paid payment; a paid link without one is an answer we cannot use. */
  private async paidOrder(linkId: string): Promise<PaymentLinkOrderEntity> {
    const orders = (await this.client.PGLinkFetchOrders(linkId, undefined, undefined, 'PAID', CALL_OPTIONS))
      .data;
    const paid = orders.find((order) => order.order_status === 'PAID' && order.order_id);
    if (!paid) throw new PspOutageError(`Cashfree reports link ${linkId} paid without its paid order`);
    return paid;
  }

  /** Cancels the link; Cashfree refuses to cancel one that is not ACTIVE (paid, expired, cancelled). */
  async expireSession(session: PspSession): Promise<SessionEnd> {
    try {
      await this.call('end', () => this.client.PGCancelLink(session.id, undefined, undefined, CALL_OPTIONS));
      return 'ended';
    } catch (error) {
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /**
   * A refund of the paid order (`paymentReference`), with our refund id as its `refund_id` and, as a UUID, its
   * `x-idempotency-key`; our link id rides in `refund_note`, which its refund answers carry back. Cashfree answers
   * a `refund_id` it already has with 409: that refund is read back, so a retry finds the first.
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const orderId = request.paymentReference;
    const refund = await this.call('refund', async () => {
      try {
        const body = {
          refund_amount: cashfreeAmount(request.amount),
          refund_id: request.refundId,
          refund_note: request.linkId,
        };
        const key = idempotencyKey(request.refundId);
        return (await this.client.PGOrderCreateRefund(orderId, body, undefined, key, CALL_OPTIONS)).data;
      } catch (error) {
        if (statusOfAxios(error) !== 409) throw error;
        return this.fetchRefund(orderId, request.refundId);
      }
    });
    return refundStatus(refund);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const named = refundOfReference(reference);
    if (!named) throw new InvalidNotificationError('Not a Cashfree refund reference.');
    return refundStatus(await this.call('lookup', () => this.fetchRefund(named.orderId, named.refundId)));
  }

  private async fetchRefund(orderId: string, refundId: string): Promise<RefundEntity> {
    return (await this.client.PGOrderFetchRefund(orderId, refundId, undefined, undefined, CALL_OPTIONS)).data;
  }

  /** One operation at Cashfree (one call or a few), bounded by the PSP call budget, its errors translated. */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall(this.provider, request, (error) => failure(this.descriptor, error, operation));
  }
}

/**
 * The SDK's errors (axios's) in the closed set (`pspFailure`): 401 and 403 are refused credentials; a link is
 * refused with 400 or 422 (an amount, a currency or a field it does not take), its cancellation with 400, 404,
 * 409 or 422 (not ACTIVE), a refund by `isRefusalStatus` unless Cashfree says the idempotency key is in use; no
 * answer, 429 and 5xx are Cashfree failing.
 */
function failure(descriptor: typeof cashfree, error: unknown, operation: PspOperation): PspFailure {
  const status = statusOfAxios(error);
  const data = (error as { response?: { data?: { message?: unknown; type?: unknown } } })?.response?.data;
  const reason = typeof data?.message === 'string' ? data.message : messageOf(error);
  const refusals = operation === 'end' ? [400, 404, 409, 422] : [400, 422];
  return pspFailure(error, operation, {
    psp: descriptor.displayName,
    status,
    reason,
    refusal: status !== undefined && refusals.includes(status),
    inProgress: data?.type === 'idempotency_error',
  });
}

/** The HTTP status of an axios error's answer; undefined when none came. */
function statusOfAxios(error: unknown): number | undefined {
  const status = (error as { response?: { status?: unknown } } | null)?.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The link of an attempt: our ids in its notes, Cashfree's own messages and reminders off. */
function linkRequest(checkout: SessionRequest, methods: string | undefined): CreateLinkRequest {
  const { link, amount } = checkout;
  const email = checkout.references?.prefilled_email;
  return {
    link_id: checkout.paymentId,
    link_amount: cashfreeAmount(amount),
    link_currency: amount.currency,
    link_purpose: (link.description || `Payment ${link.id}`).slice(0, 500),
    customer_details: { customer_phone: PLACEHOLDER_PHONE, ...(email ? { customer_email: email } : {}) },
    link_partial_payments: false,
    link_expiry_time: indiaTime(checkout.expiresAt),
    link_notify: { send_sms: false, send_email: false },
    link_auto_reminders: false,
    link_notes: { link_id: link.id, payment_id: checkout.paymentId, mode: link.mode },
    link_meta: {
      notify_url: checkout.notificationUrl,
      ...(checkout.successUrl.length <= MAX_RETURN_URL ? { return_url: checkout.successUrl } : {}),
      ...(methods ? { payment_methods: methods } : {}),
    },
  };
}

/** When the link expires, as Cashfree answered it, else as asked. */
function expiryOf(link: LinkEntity, asked: Date): string {
  const at = link.link_expiry_time ? Date.parse(link.link_expiry_time) : Number.NaN;
  return new Date(Number.isNaN(at) ? asked.getTime() : at).toISOString();
}

/**
 * An unpaid link's state: ACTIVE (the buyer may still pay, or retry a failed payment) and PARTIALLY_PAID (never
 * asked for: partial payments are off) are pending.
 */
function stateOf(status: string | undefined): Pick<PspSessionStatus, 'state' | 'failure'> {
  if (status === 'EXPIRED') {
    return { state: 'expired', failure: { code: 'expired', message: 'The Cashfree payment link expired.' } };
  }
  if (status === 'CANCELLED') {
    return {
      state: 'canceled',
      failure: { code: 'canceled', message: 'The Cashfree payment link was cancelled.' },
    };
  }
  return { state: 'pending', failure: null };
}

/** SUCCESS is succeeded; CANCELLED (and FAILED, which its description names) failed; PENDING and ONHOLD pending. */
function refundStatus(refund: RefundEntity): PspRefundStatus {
  const status = refund.refund_status as string | undefined;
  const state =
    status === 'SUCCESS' ? 'succeeded' : status === 'CANCELLED' || status === 'FAILED' ? 'failed' : 'pending';
  const note = refund.refund_note ?? '';
  return {
    reference: refundReference(refund.order_id ?? '', refund.refund_id ?? ''),
    refundId: isId('re', refund.refund_id ?? '') ? (refund.refund_id as string) : null,
    linkId: isId('pl', note) ? note : null,
    state,
    failureMessage: state === 'failed' ? `Cashfree: ${refund.status_description ?? status}` : null,
  };
}

/**
 * Cashfree for each connection whose keys are stored under its `secret_name`: its sandbox for a test-mode
 * connection, production for a live one; `CASHFREE_API_URL` points the SDK at a Cashfree-speaking server (its
 * base path included, as `https://sandbox.cashfree.com/pg`). The SDK is loaded on the first connection built.
 * Its error analytics stay off: on, the SDK would start Sentry with Cashfree's own DSN and send it our errors.
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof cashfree) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const { Cashfree: Client, CFEnvironment } = await import('cashfree-pg');
    const environment = connection.mode === 'live' ? CFEnvironment.PRODUCTION : CFEnvironment.SANDBOX;
    const client = new Client(
      environment,
      credentials.client_id,
      credentials.client_secret,
      undefined,
      undefined,
      undefined,
      false,
    );
    client.XApiVersion = CASHFREE_API_VERSION;
    if (runtime.apiUrl) client.basePath = runtime.apiUrl.replace(/\/$/, '');
    return new CashfreePsp(descriptor, client, credentials, connection);
  });
}
