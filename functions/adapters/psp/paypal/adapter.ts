import type { Order, Refund } from '@paypal/paypal-server-sdk';
import { type LineItem, linesCharging } from '../../../domain/amount.ts';
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
  type SessionRequest,
} from '../../../ports/psp.ts';
import type { CapturesLater, Refunds } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { type PspOperation, pspFailure, statusOf, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import { declineOf } from '../kit/declines.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import {
  createPaypalClient,
  type PaypalClient,
  type PaypalCredentials,
  paypalIssue,
  paypalReason,
  verificationBody,
} from './client.ts';
import type { paypal } from './descriptor.ts';
import { PaypalMandates, vaultAttributes, withPaypalMandates } from './mandates.ts';
import {
  paypalBuyer,
  paypalMoney,
  paypalNotification,
  paypalOrderStatus,
  paypalRefundStatus,
} from './statuses.ts';

const ORDER_ID = /^[A-Z0-9]{8,36}$/;

/**
 * PayPal's Orders v2 with PayPal's hosted approval page, through the official `@paypal/paypal-server-sdk`. An
 * order (intent `CAPTURE`) is our session; the buyer approves it on PayPal's page and no money moves until we
 * capture it, which we do only while the link can still be paid by that attempt (`captureSession`, called by the
 * use cases: docs/orchestration.md#deferred-capture). PayPal has no call to void an order, so ending one is our
 * promise never to capture it. Notifications are verified by PayPal's own verification call for the
 * connection's webhook id; what they name is then read back from PayPal.
 */
export class PaypalPsp extends ConnectedPsp<typeof paypal> implements Psp, CapturesLater, Refunds {
  readonly checkoutOrigin: string;
  /** PayPal keeps a `PayPal-Request-Id` for at least 6 hours for captures and refunds (its idempotency guide). */
  readonly idempotencyWindowMs = 6 * 3_600_000;
  /** PayPal's verification call, before the order is read. */
  readonly verificationCalls = 1;
  private readonly client: PaypalClient;
  private readonly credentials: PaypalCredentials;

  constructor(
    descriptor: typeof paypal,
    client: PaypalClient,
    credentials: PaypalCredentials,
    connection: PspConnection,
  ) {
    super(descriptor, connection);
    this.client = client;
    this.credentials = credentials;
    this.checkoutOrigin =
      credentials.environment === 'live' ? 'https://www.paypal.com' : 'https://www.sandbox.paypal.com';
  }

  private get livemode(): boolean {
    return this.credentials.environment === 'live';
  }

  /** One call to PayPal, bounded by the PSP call budget, its errors translated (`failure`). */
  private call<T>(operation: PspOperation, request: () => Promise<{ result: T }>): Promise<T> {
    return translatedCall(
      this.provider,
      async () => (await request()).result,
      (error) => this.failure(error, operation),
    );
  }

  /**
   * PayPal's errors in the closed set (`pspFailure`): 401 and 403 are refused credentials; PayPal refuses an
   * order with 400 (INVALID_REQUEST) or 422 (UNPROCESSABLE_ENTITY: a currency or amount it does not take); no
   * answer, 429 and 5xx are PayPal failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = statusOf(error);
    return pspFailure(error, operation, {
      psp: 'PayPal',
      status,
      reason: paypalReason(error),
      refusal: status === 422 || (operation === 'session' && status === 400),
    });
  }

  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const problem = amountProblem(this.descriptor.amounts, checkout.amount, 'payment');
    if (problem) throw new PspRefusalError(`PayPal refused the session: ${problem}`);
    if (checkout.paymentMethods && !checkout.paymentMethods.includes('paypal')) {
      throw new PspRefusalError('PayPal refused the session: it serves the paypal method only.');
    }
    // Vaulting without a purchase needs a setup token PayPal's document does not have (docs/subscriptions.md#paypal).
    if (checkout.opensMandate?.withoutCharge) {
      throw new PspRefusalError('PayPal refused the session: it sets a mandate up only with a charge.');
    }
    const order = await this.call('session', () =>
      this.client.orders.createOrder({
        body: orderRequest(this.descriptor, checkout),
        paypalRequestId: checkout.paymentId,
      }),
    );
    const url = order.links?.find((link) => link.rel === 'payer-action' || link.rel === 'approve')?.href;
    if (!order.id || !url) throw new PspOutageError('PayPal returned an order without its approval link');
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: order.id,
      url,
      expires_at: checkout.expiresAt.toISOString(),
    };
  }

  /**
   * Verified by PayPal itself: its verification call, for this connection's webhook id, over the exact body
   * received and its transmission headers. A delivery PayPal does not vouch for is refused.
   */
  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    let event: unknown;
    try {
      event = JSON.parse(rawBody);
    } catch {
      throw new InvalidNotificationError('Not a PayPal webhook event.');
    }
    const body =
      event !== null && typeof event === 'object' && !Array.isArray(event)
        ? verificationBody(rawBody, headers, this.credentials.webhook_id)
        : undefined;
    if (!body) throw new InvalidNotificationError('Not a signed PayPal webhook delivery.');
    const answer = await translatedCall(
      this.provider,
      () => this.client.verify(body),
      (error) => this.failure(error, 'lookup'),
    );
    // PayPal refuses (400, 422) to verify transmission fields it never sent: the delivery is not its own.
    if (answer.status === 400 || answer.status === 422) {
      throw new InvalidNotificationError('PayPal refused to verify the webhook delivery.');
    }
    if (answer.status !== 200) {
      throw this.failure(
        Object.assign(new Error(`verification answered ${answer.status}`), { statusCode: answer.status }),
        'lookup',
      );
    }
    if (answer.verification_status !== 'SUCCESS') {
      throw new InvalidNotificationError('PayPal did not verify the webhook delivery.');
    }
    return [paypalNotification(event as Record<string, unknown>, this.livemode)];
  }

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    if (!ORDER_ID.test(sessionId)) throw new InvalidNotificationError('Not a PayPal order id.');
    const order = await this.call('lookup', () => this.client.orders.getOrder({ id: sessionId }));
    return paidOrderStatus(order, this.livemode);
  }

  /**
   * Captures the approved order, once: our payment id names the capture (`PayPal-Request-Id`), so the buyer's
   * return and the notification capturing together make one capture. PayPal's 422 says the order cannot be
   * captured (already captured, not approved, or the buyer's funding source declined): the order is read back,
   * and a decline that leaves it uncaptured fails the attempt.
   */
  async captureSession(session: { id: string; paymentId: string }): Promise<PspSessionStatus> {
    try {
      const order = await this.call('end', () =>
        this.client.orders.captureOrder({ id: session.id, paypalRequestId: `capture-${session.paymentId}` }),
      );
      return paidOrderStatus(order, this.livemode);
    } catch (error) {
      if (pspFailureOf(error)?.kind !== 'refused') throw error;
      const status = await this.retrieveSession(session.id);
      if (status.state !== 'pending') return status;
      return {
        ...status,
        deferredCapture: undefined,
        state: 'failed',
        failure: declineOf(
          this.descriptor,
          paypalIssue((error as Error).cause),
          `PayPal refused the capture: ${(error as Error).message}`,
        ),
      };
    }
  }

  /** `POST /v2/payments/captures/{id}/refund`, our refund id as `PayPal-Request-Id` and `invoice_id`. */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(`PayPal: ${problem}`);
    const refund = await this.call('refund', () =>
      this.client.payments.refundCapturedPayment({
        captureId: request.paymentReference,
        paypalRequestId: request.refundId,
        prefer: 'return=representation',
        body: {
          amount: paypalMoney(this.descriptor, request.amount),
          invoiceId: request.refundId,
          customId: request.linkId,
          ...(request.description ? { noteToPayer: request.description.slice(0, 255) } : {}),
        },
      }),
    );
    return paypalRefundStatus(refund as Refund, request);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const refund = await this.call('lookup', () => this.client.payments.getRefund({ refundId: reference }));
    return paypalRefundStatus(refund);
  }
}

/** The order for one attempt: one purchase unit, our ids echoed back, PayPal's page in the buyer's language. */
function orderRequest(descriptor: typeof paypal, checkout: SessionRequest) {
  const { link, amount } = checkout;
  const lines = linesCharging(link.line_items, amount);
  return {
    intent: 'CAPTURE',
    purchaseUnits: [
      {
        referenceId: 'default',
        customId: link.id,
        invoiceId: checkout.paymentId,
        description: (link.description || `Payment ${link.id}`).slice(0, 127),
        amount: {
          ...paypalMoney(descriptor, amount),
          ...(lines ? { breakdown: { itemTotal: paypalMoney(descriptor, amount) } } : {}),
        },
        ...(lines ? { items: lines.map((line) => paypalItem(descriptor, line)) } : {}),
      },
    ],
    paymentSource: {
      paypal: {
        // PayPal offers the address as the login to the buyer's account (docs/api.md#buyer-references).
        ...(checkout.references?.prefilled_email
          ? { emailAddress: checkout.references.prefilled_email }
          : {}),
        experienceContext: {
          locale: paypalLocale(checkout.locale),
          returnUrl: checkout.successUrl,
          cancelUrl: checkout.cancelUrl,
          userAction: 'PAY_NOW',
          // PayPal's GET_FROM_FILE lets the buyer pick an address in any country: a link's `collect.shipping_address`
          // (countries named) is asked on our page instead (`PSP_PAGE_ASKS`).
          shippingPreference: 'NO_SHIPPING',
        },
        ...(checkout.opensMandate
          ? { attributes: vaultAttributes(descriptor, checkout.opensMandate, link.description) }
          : {}),
      },
    },
  } as Parameters<PaypalClient['orders']['createOrder']>[0]['body'];
}

/** The order's status, with its payer once PayPal reports it paid (`paypalBuyer`). */
async function paidOrderStatus(order: Order, livemode: boolean): Promise<PspSessionStatus> {
  const status = paypalOrderStatus(order, livemode);
  return status.state === 'succeeded' ? { ...status, ...(await paypalBuyer(order)) } : status;
}

/** A line as a PayPal item: its tax-inclusive unit price, the quantity as PayPal's string. */
const paypalItem = (descriptor: typeof paypal, item: LineItem) => ({
  name: item.name.slice(0, 127),
  quantity: String(item.quantity),
  unitAmount: paypalMoney(descriptor, item.unit_amount),
});

const PAYPAL_DEFAULT_REGION: Record<string, string> = { en: 'US', nl: 'NL', de: 'DE', fr: 'FR', es: 'ES' };

/** Our locale tag as PayPal's BCP 47 `locale` (`nl` → `nl-NL`, `nl-BE` kept). */
export function paypalLocale(tag: string): string {
  if (tag.includes('-')) return tag;
  return `${tag}-${PAYPAL_DEFAULT_REGION[tag] ?? 'US'}`;
}

/**
 * PayPal for each connection whose credentials are stored under its `secret_name`, in its mode's environment.
 * `PAYPAL_API_URL` sends the SDK's calls elsewhere than PayPal's API origin (tests: a PayPal-speaking server).
 * PayPal has no call to void an order, so its adapter cannot end a session (`EndsSessions`): an attempt is
 * released by our promise never to capture it (docs/orchestration.md#deferred-capture).
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof paypal) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (stored, connection) => {
    // The mode's environment, which the descriptor's `credentialsProblem` holds stored credentials to; spelled
    // here, since the adapter takes nothing from descriptor.ts as a value (docs/orchestration.md#adding-a-psp).
    const credentials = { ...stored, environment: connection.mode === 'live' ? 'live' : 'sandbox' } as const;
    const client = await createPaypalClient(credentials, runtime.apiUrl);
    return withPaypalMandates(
      new PaypalPsp(descriptor, client, credentials, connection),
      new PaypalMandates(descriptor, client, connection),
    );
  });
}
