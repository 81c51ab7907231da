import type Stripe from 'stripe';
import { type LineItem, linesCharging } from '../../../domain/amount.ts';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { PspConnection } from '../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { Amount } from '../../../domain/money.ts';
import type { PspSession } from '../../../domain/payment-link.ts';
import type { PaymentMethod } from '../../../domain/payment-methods.ts';
import { amountProblem, fromPspMinorUnits, linesProblem, pspMinorUnits } from '../../../domain/psp-rules.ts';
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
import type {
  EndsSessions,
  ListsPayouts,
  PspPayout,
  PspPayoutItem,
  Refunds,
} from '../../../ports/psp-capabilities.ts';
import type { PspRuntime } from '../../../ports/psp-descriptor.ts';
import { messageOf, type PspOperation, pspFailure } from '../kit/calls.ts';
import { ConnectedPsp } from '../kit/connected-psp.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import { storedCredentialsFactory } from '../kit/factory.ts';
import { stripeBuyer, stripeBuyerQuestions, stripeLinkId } from './buyer.ts';
import { stripeCheckoutDecline } from './declines.ts';
import type { stripe } from './descriptor.ts';
import { mandateSession } from './mandate-session.ts';
import { StripeMandates, withStripeMandates } from './mandates.ts';
import { stripePayoutItems, stripePayouts } from './payouts.ts';

/** The Secrets Manager value of a Stripe connection's credentials (its descriptor's `credentials`). */
export type StripeCredentials = CredentialsOf<typeof stripe>;

/** The `unit_amount` Stripe expects for an amount; throws when it has more decimals than Stripe takes. */
export function stripeUnitAmount(descriptor: typeof stripe, amount: Amount): number {
  return Number(pspMinorUnits(descriptor.amounts, amount));
}

/**
 * The statuses a complete session's PaymentIntent returns to when its asynchronous payment failed: Stripe asks for
 * another method (docs.stripe.com, "How PaymentIntents work"), or cancelled it; the session stays `complete` and
 * `unpaid`, and the buyer pays again through a new session.
 */
const ASYNC_PAYMENT_FAILED: ReadonlySet<Stripe.PaymentIntent.Status> = new Set([
  'requires_payment_method',
  'canceled',
]);

/** What an unpaid session's status says of its payment. */
type UnpaidState = Pick<PspSessionStatus, 'state' | 'failure' | 'paymentUnderWay'>;

/** Events about a refund: its outcome is then fetched with `retrieveRefund`. */
const REFUND_OBJECT = 'refund';

/** Where the SDK sends API requests: Stripe itself unless a test points it at a Stripe-speaking server. */
export interface StripeEndpoint {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/** The endpoint of an `<ID>_API_URL` (`STRIPE_API_URL`). */
export function stripeEndpoint(apiUrl: string | undefined): StripeEndpoint | undefined {
  if (!apiUrl) return undefined;
  const url = new URL(apiUrl);
  const https = url.protocol === 'https:';
  return {
    host: url.hostname,
    port: Number(url.port || (https ? 443 : 80)),
    protocol: https ? 'https' : 'http',
  };
}

export class StripePsp
  extends ConnectedPsp<typeof stripe>
  implements Psp, EndsSessions, Refunds, ListsPayouts
{
  readonly checkoutOrigin = 'https://checkout.stripe.com';
  /** Stripe removes idempotency keys once they are 24 hours old. */
  readonly idempotencyWindowMs = 24 * 3_600_000;
  private readonly sdk: typeof Stripe;
  /** The SDK's client, which the connection's mandates share (./mandates.ts). */
  readonly stripe: Stripe;
  private readonly webhookSecrets: string[];
  private readonly livemode: boolean;

  /** `sdk` is the `stripe` module's export, loaded by the factory only when a connection uses Stripe. */
  constructor(
    descriptor: typeof stripe,
    sdk: typeof Stripe,
    credentials: StripeCredentials,
    connection: PspConnection,
    endpoint?: StripeEndpoint,
  ) {
    super(descriptor, connection);
    this.sdk = sdk;
    this.stripe = new sdk(credentials.secret_key, {
      maxNetworkRetries: CALL_BUDGETS.psp.tries - 1,
      timeout: CALL_BUDGETS.psp.timeoutMs,
      telemetry: false,
      ...(endpoint ?? {}),
    });
    this.webhookSecrets = [credentials.webhook_secret, credentials.previous_webhook_secret].filter(
      (secret): secret is string => secret !== undefined,
    );
    this.livemode = connection.mode === 'live';
  }

  /**
   * Refuses (`PspRefusalError`), without calling Stripe, an amount Stripe would refuse: the total
   * (`amountProblem`) or any line's unit amount (`linesProblem`), since Stripe checks each.
   */
  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const lines = stripeLines(checkout);
    // A trial's session charges nothing (./mandate-session.ts): no amount for Stripe to refuse.
    const problem = checkout.opensMandate?.withoutCharge
      ? undefined
      : (amountProblem(this.descriptor.amounts, checkout.amount, 'payment') ??
        linesProblem(
          this.descriptor.amounts,
          lines.map((line) => line.unit_amount),
        ));
    if (problem) throw new PspRefusalError(problem);
    const session = await this.call('session', () => this.createCheckoutSession(checkout, lines));
    if (!session.url) throw new PspOutageError(`Stripe returned session ${session.id} without a url`);
    if (session.livemode !== this.livemode) {
      throw new PspOutageError(
        `Stripe created ${session.id} with livemode ${session.livemode} for a ${this.connection.mode} connection`,
      );
    }
    return {
      provider: this.provider,
      connection_id: this.connection.id,
      payment_id: checkout.paymentId,
      id: session.id,
      url: session.url,
      expires_at: new Date(session.expires_at * 1000).toISOString(),
    };
  }

  private createCheckoutSession(checkout: SessionRequest, lines: readonly LineItem[]) {
    const { link } = checkout;
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      // The buyer's reference when the address carried one (docs/api.md#buyer-references), else the link's id.
      client_reference_id: checkout.references?.client_reference_id ?? link.id,
      ...stripeBuyerQuestions(checkout),
      line_items: lines.map((item) => ({
        quantity: item.quantity,
        price_data: {
          currency: item.unit_amount.currency.toLowerCase(),
          unit_amount: stripeUnitAmount(this.descriptor, item.unit_amount),
          product_data: { name: item.name },
        },
      })),
      ...(checkout.paymentMethods
        ? {
            allowed_payment_method_types: [
              ...new Set(
                checkout.paymentMethods.flatMap((method) => stripeMethod(this.descriptor, method) ?? []),
              ),
            ],
          }
        : {}),
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
      locale: stripeLocale(checkout.locale),
      expires_at: Math.floor(checkout.expiresAt.getTime() / 1000),
      metadata: { link_id: link.id, mode: link.mode, payment_id: checkout.paymentId },
      payment_intent_data: {
        metadata: { link_id: link.id, mode: link.mode, payment_id: checkout.paymentId },
      },
    };
    const opens = checkout.opensMandate;
    return this.stripe.checkout.sessions.create(opens ? mandateSession(params, opens) : params);
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification[]> {
    const event = this.constructEvent(rawBody, headers['stripe-signature'] ?? '');
    if (event.livemode !== this.livemode) {
      throw new InvalidNotificationError('A Stripe event of the other mode.');
    }
    const object = event.data.object as { object?: string; id?: string };
    const id = typeof object.id === 'string' ? object.id : null;
    return [
      {
        type: event.type,
        sessionId: object.object === 'checkout.session' ? id : null,
        refundReference: object.object === REFUND_OBJECT ? id : null,
        livemode: event.livemode,
      },
    ];
  }

  /** Verified with the current signing secret, or the previous one while a rotation overlaps. */
  private constructEvent(rawBody: string, signature: string): Stripe.Event {
    let failure: unknown;
    for (const secret of this.webhookSecrets) {
      try {
        return this.stripe.webhooks.constructEvent(rawBody, signature, secret);
      } catch (error) {
        failure = error;
      }
    }
    throw new InvalidNotificationError(
      failure instanceof this.sdk.errors.StripeSignatureVerificationError
        ? 'The Stripe-Signature header does not verify.'
        : 'Not a Stripe event.',
    );
  }

  /**
   * The session with its PaymentIntent (`expand`, the same call): a session that expired after the buyer's card was
   * declined failed with that decline (its `last_payment_error`, read through Stripe's table, ./declines.ts).
   */
  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const session = await this.call('lookup', () =>
      this.stripe.checkout.sessions.retrieve(sessionId, { expand: ['payment_intent'] }),
    );
    if (session.livemode !== this.livemode) {
      throw new InvalidNotificationError('A Stripe Checkout Session of the other mode.');
    }
    const paymentIntent =
      typeof session.payment_intent === 'string'
        ? session.payment_intent
        : (session.payment_intent?.id ?? null);
    const paid =
      session.status === 'complete' &&
      (session.payment_status === 'paid' || session.payment_status === 'no_payment_required');
    return {
      id: session.id,
      paymentId: session.metadata?.payment_id ?? null,
      linkId: stripeLinkId(session),
      ...(paid ? { state: 'succeeded', failure: null } : this.unpaidState(session)),
      paymentReference: paid ? (paymentIntent ?? session.id) : paymentIntent,
      amount: sessionAmount(this.descriptor, session),
      livemode: session.livemode,
      ...(paid ? await stripeBuyer(session) : {}),
    };
  }

  /**
   * An unpaid session: open is pending; expired is a failure with the decline of the buyer's last attempt when
   * Stripe declined one, else expired (the buyer left, or never paid). A complete one was paid by an asynchronous
   * method (SEPA Direct Debit): pending, its money under way, while its PaymentIntent is `processing`, failed with
   * the bank's answer once Stripe returns the PaymentIntent to `requires_payment_method` (or cancels it), as it
   * does when the debit fails (`checkout.session.async_payment_failed`).
   */
  private unpaidState(session: Stripe.Checkout.Session): UnpaidState {
    const paymentIntent = typeof session.payment_intent === 'object' ? session.payment_intent : null;
    if (session.status === 'complete') return this.asyncPaymentState(paymentIntent);
    if (session.status !== 'expired') return { state: 'pending', failure: null };
    const declined = paymentIntent?.last_payment_error;
    if (!declined) {
      return {
        state: 'expired',
        failure: { code: 'expired', message: 'The Stripe Checkout Session expired.' },
      };
    }
    const message = "The Stripe Checkout Session expired after Stripe declined the buyer's payment.";
    return {
      state: 'failed',
      failure: stripeCheckoutDecline(declined, this.descriptor.displayName, message),
    };
  }

  /**
   * A complete session's asynchronous payment: under way while its PaymentIntent is `processing` (a debit takes
   * days, past the session's end), failed once its PaymentIntent can no longer succeed.
   */
  private asyncPaymentState(intent: Stripe.PaymentIntent | null): UnpaidState {
    if (intent?.status === 'processing') return { state: 'pending', failure: null, paymentUnderWay: true };
    if (!intent || !ASYNC_PAYMENT_FAILED.has(intent.status)) return { state: 'pending', failure: null };
    const message = "Stripe could not collect the buyer's asynchronous payment.";
    const failure = stripeCheckoutDecline(
      intent.last_payment_error ?? {},
      this.descriptor.displayName,
      message,
    );
    return { state: 'failed', failure };
  }

  async expireSession(session: PspSession): Promise<SessionEnd> {
    try {
      await this.call('end', () => this.stripe.checkout.sessions.expire(session.id));
      return 'ended';
    } catch (error) {
      // Stripe refuses (400) to expire a session that is complete (paid, or an asynchronous payment under way)
      // or already expired: which one, the caller asks.
      if (pspFailureOf(error)?.kind === 'refused') return 'refused';
      throw error;
    }
  }

  /**
   * A refund of the PaymentIntent, with our refund id as idempotency key. Stripe's 4xx answers are refusals
   * (`charge_already_refunded`, `amount_too_large` ...), except an `idempotency_error` and those that leave the
   * outcome open (`isRefusalStatus`).
   */
  async refund(request: PspRefundRequest): Promise<PspRefundStatus> {
    const problem = amountProblem(this.descriptor.amounts, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const refund = await this.call('refund', () =>
      this.stripe.refunds.create(
        {
          payment_intent: request.paymentReference,
          amount: stripeUnitAmount(this.descriptor, request.amount),
          metadata: { refund_id: request.refundId, link_id: request.linkId },
        },
        { idempotencyKey: request.refundId },
      ),
    );
    return refundStatus(refund);
  }

  async retrieveRefund(reference: string): Promise<PspRefundStatus> {
    return refundStatus(await this.call('lookup', () => this.stripe.refunds.retrieve(reference)));
  }

  listPayouts(since: Date): Promise<PspPayout[]> {
    return stripePayouts(this.descriptor, this.stripe, (request) => this.call('lookup', request), since);
  }

  payoutItems(payout: PspPayout): Promise<PspPayoutItem[]> {
    return stripePayoutItems(this.descriptor, this.stripe, (request) => this.call('lookup', request), payout);
  }

  /** One call to Stripe (bounded by the SDK's own timeout and retries), its errors translated (`failure`). */
  private async call<T>(operation: PspOperation, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(error, operation);
    }
  }

  /**
   * Stripe's errors in the closed set (`pspFailure`): `StripeAuthenticationError` (401) and
   * `StripePermissionError` (403) are refused credentials; a session or an end is refused by an
   * `invalid_request_error` (400, 404: its amount, its currency; a session no longer open), a refund by any 4xx
   * but an `idempotency_error`; a `StripeConnectionError` (no answer), 429 and 5xx are Stripe failing.
   */
  private failure(error: unknown, operation: PspOperation): PspFailure {
    const { errors } = this.sdk;
    return pspFailure(error, operation, {
      psp: 'Stripe',
      status: error instanceof errors.StripeError ? error.statusCode : undefined,
      reason: messageOf(error),
      refusal: error instanceof errors.StripeInvalidRequestError,
      inProgress: error instanceof errors.StripeIdempotencyError,
    });
  }
}

/** Stripe charges the sum of the lines: the link's own (which add up to the amount), or one at the amount. */
function stripeLines({ link, amount }: SessionRequest): readonly LineItem[] {
  return (
    linesCharging(link.line_items, amount) ?? [
      { name: link.description || `Payment ${link.id}`, quantity: 1, unit_amount: amount },
    ]
  );
}

/** What a session charged: nothing for a trial's, which only set a mandate up (Stripe's `amount_total` is null). */
function sessionAmount(
  descriptor: typeof stripe,
  { mode, amount_total, currency }: Stripe.Checkout.Session,
): Amount | null {
  if (!currency) return null;
  const charged = mode === 'setup' ? 0 : amount_total;
  return charged === null ? null : fromPspMinorUnits(descriptor.amounts, charged, currency);
}

function refundStatus(refund: Stripe.Refund): PspRefundStatus {
  const state =
    refund.status === 'succeeded'
      ? 'succeeded'
      : refund.status === 'failed' || refund.status === 'canceled'
        ? 'failed'
        : 'pending';
  return {
    reference: refund.id,
    refundId: refund.metadata?.refund_id ?? null,
    linkId: refund.metadata?.link_id ?? null,
    state,
    failureMessage: state === 'failed' ? `Stripe: ${refund.failure_reason ?? refund.status}` : null,
  };
}

/**
 * Stripe for each connection whose credentials are stored under its `secret_name`; `STRIPE_API_URL` points the
 * SDK at a Stripe-speaking server. The SDK is loaded on the first connection built, not with this module: a
 * function loads this module only to serve a Stripe connection, and the SDK's chunk stays apart from it.
 */
export function createFactory(runtime: PspRuntime, descriptor: typeof stripe) {
  const endpoint = stripeEndpoint(runtime.apiUrl);
  return storedCredentialsFactory(descriptor, runtime.secrets, async (credentials, connection) => {
    const { default: sdk } = await import('stripe');
    return stripeAdapter(descriptor, sdk, credentials, connection, endpoint);
  });
}

/** A connection's adapter, with its mandates (./mandates.ts) on the same SDK client. */
export function stripeAdapter(
  descriptor: typeof stripe,
  sdk: typeof Stripe,
  credentials: StripeCredentials,
  connection: PspConnection,
  endpoint?: StripeEndpoint,
) {
  const psp = new StripePsp(descriptor, sdk, credentials, connection, endpoint);
  return withStripeMandates(psp, new StripeMandates(descriptor, sdk, psp.stripe, connection));
}

/** Regional variants Stripe Checkout speaks beside plain languages (its `locale` enum). */
const STRIPE_REGIONAL_LOCALES = new Set(['en-GB', 'fr-CA', 'es-419']);

/** Our locale tag in Stripe's `locale` spelling: the regional variant when Stripe has it, else the language. */
export function stripeLocale(tag: string): Stripe.Checkout.SessionCreateParams.Locale {
  return (
    STRIPE_REGIONAL_LOCALES.has(tag) ? tag : tag.slice(0, 2)
  ) as Stripe.Checkout.SessionCreateParams.Locale;
}

/** Our payment method as Stripe's `allowed_payment_method_types` (its descriptor's `methods`). */
const stripeMethod = (descriptor: typeof stripe, method: PaymentMethod) =>
  descriptor.methods[method] as Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType | undefined;
