import { linesCharging } from '../../../domain/amount.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import { toMinorUnits } from '../../../domain/money.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import { amountProblem, fromPspMinorUnits } from '../../../domain/psp-rules.ts';
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
import type { CapturesLater, Refunds, VoidsAuthorizations } from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure, translatedCall } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { RecentFacts } from '../kit/recent-facts.ts';
import { type CheckoutCredentials, type CheckoutSdk, loadCheckoutSdk, validCkoSignature } from './client.ts';
import type { checkoutCom } from './descriptor.ts';
import {
  billingCountry,
  CKO_REFUND_EVENTS,
  type CkoAction,
  type CkoPayment,
  type CkoPaymentLink,
  checkoutLocale,
  checkoutProduct,
  ckoRefundReference,
  ckoWebhookOf,
  parseCkoRefundReference,
  paymentStateOf,
  unpaidLinkStateOf,
} from './wire.ts';

/** Checkout.com answers a repeated `Cko-Idempotency-Key` as the first request for 24 hours. */
export const CHECKOUT_IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * Checkout.com through the official `checkout-sdk-node`: each attempt is a Payment Link (hosted by Checkout.com,
 * our `pay_…` id as its `reference`) made with capture disabled, because a payment link cannot be ended early:
 * the buyer's payment only authorizes, and we capture it only while our link can still be paid by that attempt,
 * else void it (docs/orchestration.md#deferred-capture). Its status is read from the link and its payment;
 * notifications carry a `Cko-Signature` HMAC of the body with the connection's signature key
 * (docs/orchestration.md#checkoutcom).
 */
export class CheckoutPsp
  extends ConnectedPsp<typeof checkoutCom>
  implements Psp, CapturesLater, VoidsAuthorizations, Refunds
{
  readonly checkoutOrigin: string;
  readonly idempotencyWindowMs = CHECKOUT_IDEMPOTENCY_WINDOW_MS;
  private readonly sdk: CheckoutSdk;
  private readonly credentials: CheckoutCredentials;
  /**
   * Links just read back (`retrieveSession`), for the capture or void that the same invocation makes right after:
   * the payment made on a link is known without reading the link again, which keeps the buyer's return (the
   * session read back, the capture, its outcome) within the checkout page's PSP calls.
   */
  /** A capture, then the payment read back (`captureSession`). */
  readonly captureCalls = 2;
  private readonly recentLinks = new RecentFacts<CkoPaymentLink>({ maxAgeMs: 60_000, maxSize: 100 });

  constructor(
    descriptor: typeof checkoutCom,
    sdk: CheckoutSdk,
    credentials: CheckoutCredentials,
    connection: PspConnection,
    apiUrl?: string,
  ) {
    super(descriptor, connection);
    this.sdk = sdk;
    this.credentials = credentials;
    this.checkoutOrigin = apiUrl
      ? new URL(apiUrl).origin
      : connection.mode === 'live'
        ? 'https://pay.checkout.com'
        : 'https://pay.sandbox.checkout.com';
  }

  private get livemode(): boolean {
    return this.connection.mode === 'live';
  }

  /** One call to Checkout.com, bounded by the PSP call budget, its errors translated (`failure`). */
  private call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    return translatedCall(this.provider, request, (error) => this.failure(error, operation));
  }

  /**
   * The SDK's errors (`http_code`, `body: { error_type, error_codes }`) in the closed set (`pspFailure`): 401
   * is refused credentials, and 403 too, except to a capture, a void or a refund, where it is Checkout.com's
   * "action not allowed" for that payment (a refusal); Checkout.com refuses a link, a capture or a void with 422
   * (or 400), a refund by `isRefusalStatus`; its timeout (408), 429 and 5xx, and no answer, are it failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const status = (error as { http_code?: unknown } | null)?.http_code;
    const code = typeof status === 'number' && status > 0 ? status : undefined;
    if (code === 403 && (operation === 'end' || operation === 'refund')) {
      return new PspRefusalError(`Checkout.com: ${checkoutErrorMessage(error)} (action not allowed)`, {
        cause: error,
      });
    }
    return pspFailure(error, operation, {
      psp: 'Checkout.com',
      status: code,
      reason: checkoutErrorMessage(error),
      refusal: code === 422 || code === 400,
    });
  }

  /** Refuses (`PspRefusalError`), without calling Checkout.com, an amount it cannot take (`amountProblem`). */
  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const { link, amount } = checkout;
    const problem = amountProblem(this.descriptor.amounts, amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const lines = linesCharging(link.line_items, amount);
    const expiresIn = Math.max(1, Math.floor((checkout.expiresAt.getTime() - Date.now()) / 1000));
    const created = (await this.call('session', () =>
      this.sdk.paymentLinks.create({
        amount: Number(toMinorUnits(amount)),
        currency: amount.currency,
        reference: checkout.paymentId,
        description: (link.description || `Payment ${link.id}`).slice(0, 100),
        expires_in: Math.min(expiresIn, this.descriptor.sessionLimits.maxMs / 1000),
        billing: { address: { country: billingCountry(checkout.locale) } },
        ...(lines ? { products: lines.map(checkoutProduct) } : {}),
        ...checkoutBuyerReferences(checkout),
        return_url: checkout.successUrl,
        locale: checkoutLocale(checkout.locale),
        processing_channel_id: this.credentials.processing_channel_id,
        // Authorize only: the link cannot be ended, so we capture while it can still be paid by this attempt.
        capture: false,
        ...(checkout.paymentMethods
          ? {
              allow_payment_methods: [
                ...new Set(checkout.paymentMethods.flatMap((m) => this.descriptor.methods[m] ?? [])),
              ],
            }
          : {}),
      }),
    )) as { id?: string; expires_on?: string; _links?: { redirect?: { href?: string } } };
    const url = created._links?.redirect?.href;
    if (!created.id || !url) throw invalidAnswer('a payment link without its id or redirect link');
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: created.id,
      url,
      expires_at: new Date(created.expires_on ?? checkout.expiresAt).toISOString(),
    };
  }

  /**
   * The `Cko-Signature` header must be the HMAC-SHA256 of the raw body with the connection's signature key (or
   * the previous one while a rotation overlaps). A payment event names the payment (`data.id`), whose link and
   * state are then read back; a refund event names the refund (payment and action).
   */
  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const keys = [this.credentials.signature_key, this.credentials.previous_signature_key].filter(
      (key): key is string => key !== undefined,
    );
    const signature = headers['cko-signature'] ?? headers['Cko-Signature'];
    if (!validCkoSignature(rawBody, signature, keys)) {
      throw new InvalidNotificationError('A Checkout.com notification whose Cko-Signature does not verify.');
    }
    const { type, data } = ckoWebhookOf(rawBody);
    const paymentId = typeof data.id === 'string' && data.id.startsWith('pay_') ? data.id : null;
    if (CKO_REFUND_EVENTS.has(type) && paymentId && typeof data.action_id === 'string') {
      const refundReference = ckoRefundReference(paymentId, data.action_id);
      return [{ type, sessionId: null, refundReference, livemode: this.livemode }];
    }
    return [{ type, sessionId: paymentId, refundReference: null, livemode: this.livemode }];
  }

  /**
   * The attempt's state: a link (`pl_…`, what we created) with the payment made on it, or a payment (`pay_…`,
   * what a notification names) alone. Its mode is the connection's: sandbox keys reach only the sandbox.
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    if (sessionId.startsWith('pay_')) return this.statusOf(await this.payment(sessionId), null);
    const link = await this.link(sessionId);
    const payment = link.payment_id ? await this.payment(link.payment_id) : null;
    return this.statusOf(payment, link);
  }

  private async link(id: string): Promise<CkoPaymentLink> {
    const link = (await this.call('lookup', () => this.sdk.paymentLinks.get(id))) as CkoPaymentLink;
    this.recentLinks.set(link.id, link);
    return link;
  }

  private payment(id: string): Promise<CkoPayment> {
    return this.call('lookup', () => this.sdk.payments.get(id)) as Promise<CkoPayment>;
  }

  /** Why Checkout.com declined `payment`: its authorization's response code, read only for a declined one. */
  private async declineCodeOf(payment: CkoPayment | null): Promise<string | undefined> {
    if (payment?.status !== 'Declined') return undefined;
    const actions = (await this.call('lookup', () =>
      this.sdk.payments.getActions(payment.id),
    )) as CkoAction[];
    return actions.find((action) => action.type === 'Authorization')?.response_code;
  }

  /** The attempt's status; a declined payment's reason costs one more call (`declineCodeOf`). */
  private async statusOf(payment: CkoPayment | null, link: CkoPaymentLink | null): Promise<PspSessionStatus> {
    const declineCode = await this.declineCodeOf(payment);
    const metadata = link?.metadata ?? payment?.metadata ?? {};
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    // The payment's amount once there is one (what the buyer authorized), else what the link asks.
    const charged = payment ?? link;
    if (!charged) throw invalidAnswer('neither a link nor a payment');
    return {
      id: link?.id ?? (payment as CkoPayment).id,
      paymentId: text(metadata.payment_id) ?? text(charged.reference),
      linkId: text(metadata.link_id),
      ...(payment
        ? paymentStateOf(this.descriptor, payment, declineCode)
        : unpaidLinkStateOf(link as CkoPaymentLink)),
      amount: fromPspMinorUnits(this.descriptor.amounts, charged.amount, charged.currency),
      livemode: this.livemode,
    };
  }

  /**
   * Captures the authorization made on the link, in full, with our payment id as the idempotency key, then
   * answers the status after, from the payment read back. Checkout.com's refusal (403 or 422: voided, declined,
   * already captured) is answered as the status it leaves. Two calls after a `retrieveSession` of the link.
   */
  async captureSession(session: { id: string; paymentId: string }): Promise<PspSessionStatus> {
    const { link, paymentReference } = await this.paymentOf(session.id);
    if (!paymentReference) return this.statusOf(null, link);
    try {
      await this.call('end', () =>
        this.sdk.payments.capture(paymentReference, { reference: session.paymentId }, session.paymentId),
      );
    } catch (error) {
      if (pspFailureOf(error)?.kind !== 'refused') throw error;
    }
    return this.statusOf(await this.payment(paymentReference), link);
  }

  /**
   * Voids the authorization made on a released attempt (never captured), with a key of our payment id: one call
   * for a notification's payment. A payment that is not (or no longer) authorized is left as it is: Checkout.com
   * refuses (403) to void it.
   */
  async voidAuthorization(session: { id: string; paymentId: string }): Promise<void> {
    const { paymentReference } = await this.paymentOf(session.id);
    if (!paymentReference) return;
    try {
      await this.call('end', () =>
        this.sdk.payments.void(
          paymentReference,
          { reference: session.paymentId },
          `void-${session.paymentId}`,
        ),
      );
    } catch (error) {
      if (pspFailureOf(error)?.kind !== 'refused') throw error;
    }
  }

  /** The Checkout.com payment of a session: itself (`pay_…`), or the one made on the link (just read, or now). */
  private async paymentOf(
    sessionId: string,
  ): Promise<{ link: CkoPaymentLink | null; paymentReference: string | undefined }> {
    if (sessionId.startsWith('pay_')) return { link: null, paymentReference: sessionId };
    // A link read before its buyer paid names no payment yet: only one that names it spares the read.
    const recent = this.recentLinks.get(sessionId);
    const link = recent?.payment_id ? recent : await this.link(sessionId);
    return { link, paymentReference: link.payment_id };
  }

  /**
   * Refunds with our refund id as the `Cko-Idempotency-Key`; Checkout.com accepts (202) and tells the outcome
   * in `payment_refunded` or `payment_refund_declined`, or in the payment's actions. A 4xx is a refusal
   * (`isRefusalStatus`). An amount it cannot take is refused without calling it (`amountProblem`).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const accepted = (await this.call('refund', () =>
      this.sdk.payments.refund(
        request.paymentReference,
        {
          amount: Number(toMinorUnits(request.amount)),
          reference: request.refundId,
          metadata: { link_id: request.linkId, refund_id: request.refundId },
        },
        request.refundId,
      ),
    )) as { action_id?: string };
    if (!accepted.action_id) throw invalidAnswer('a refund without its action id');
    return {
      reference: ckoRefundReference(request.paymentReference, accepted.action_id),
      refundId: request.refundId,
      linkId: request.linkId,
      state: 'pending',
      failureMessage: null,
    };
  }

  /** The refund's action among its payment's (`GET /payments/{id}/actions`): approved, declined, or not yet there. */
  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    const parsed = parseCkoRefundReference(reference);
    if (!parsed) throw new InvalidNotificationError('Not a Checkout.com refund reference.');
    const actions = (await this.call('lookup', () =>
      this.sdk.payments.getActions(parsed.paymentId),
    )) as CkoAction[];
    const action = actions.find((candidate) => candidate.id === parsed.actionId);
    const metadata = action?.metadata ?? {};
    const text = (value: unknown) => (typeof value === 'string' ? value : null);
    const state = !action ? 'pending' : action.approved === false ? 'failed' : 'succeeded';
    return {
      reference,
      refundId: text(metadata.refund_id) ?? text(action?.reference),
      linkId: text(metadata.link_id),
      state,
      failureMessage: state === 'failed' ? (action?.response_summary ?? 'Declined by Checkout.com') : null,
    };
  }
}

/** An answer without what it must carry: Checkout.com failing. */
const invalidAnswer = (what: string) => new PspOutageError(`Checkout.com answered ${what}`);

/** Checkout.com's own reason (`error_type` and `error_codes`), without the SDK's class name. */
function checkoutErrorMessage(error: unknown): string {
  const body = (error as { body?: { error_type?: unknown; error_codes?: unknown } } | null)?.body;
  if (body && typeof body === 'object' && typeof body.error_type === 'string') {
    const codes = Array.isArray(body.error_codes) ? `: ${body.error_codes.join(', ')}` : '';
    return `${body.error_type}${codes}`;
  }
  return messageOf(error);
}

/**
 * Checkout.com for each connection whose credentials are stored under its `secret_name`. `CHECKOUT_COM_API_URL` points
 * the SDK elsewhere than Checkout.com's hosts (tests). A payment link cannot be ended at Checkout.com, so its
 * adapter cannot end a session (`EndsSessions`): an attempt still payable there is released
 * (docs/orchestration.md#deferred-capture), and an authorization made on it later is voided (`voidAuthorization`).
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof checkoutCom) {
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const sdk = await loadCheckoutSdk(credentials, runtime.apiUrl);
    return new CheckoutPsp(descriptor, sdk, credentials, connection, runtime.apiUrl);
  });
}

/**
 * The buyer's references at Checkout.com (docs/api.md#buyer-references): the e-mail as `customer.email`, which its
 * page prefills, and the reference in `metadata` (its `reference` is our payment id). Its page asks no other buyer
 * details, and its answers echo what it was sent, so nothing of the buyer is read back.
 */
function checkoutBuyerReferences({ link, paymentId, references }: SessionRequest) {
  const reference = references?.client_reference_id;
  return {
    ...(references?.prefilled_email ? { customer: { email: references.prefilled_email } } : {}),
    metadata: {
      link_id: link.id,
      payment_id: paymentId,
      ...(reference ? { client_reference_id: reference } : {}),
    },
  };
}
