import type Stripe from 'stripe';
import { type LineItem, linesCharging } from '../../domain/amount.ts';
import { CALL_BUDGETS } from '../../domain/call-budgets.ts';
import type { PspConnection } from '../../domain/connection.ts';
import { InvalidNotificationError } from '../../domain/errors.ts';
import type { Amount } from '../../domain/money.ts';
import type { PspSession } from '../../domain/payment-link.ts';
import type { PaymentMethod } from '../../domain/payment-methods.ts';
import { MODES, type Mode } from '../../domain/principal.ts';
import {
  fromStripeMinorUnits,
  pspAmountProblem,
  pspLinesProblem,
  stripeMinorUnits,
} from '../../domain/psp-amounts.ts';
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
} from '../../ports/psp.ts';
import type { SecretStore } from '../../ports/secret-store.ts';
import { messageOf, type PspOperation, pspFailure, StoredCredentialsPspFactory } from './psp-calls.ts';
import { STRIPE_PROVIDER, stripeBuyer, stripeBuyerQuestions, stripeLinkId } from './stripe-buyer.ts';

export { STRIPE_PROVIDER } from './stripe-buyer.ts';
/**
 * Stripe Checkout Sessions live 30 minutes to 24 hours after their creation at Stripe, counted in whole seconds
 * (`expires_at`, floored; `created`, Stripe's own clock when the request arrives). The shortest session we ask
 * for is a minute longer, so that flooring and the time the request takes to reach Stripe (at most one call
 * budget) never bring it under 30 minutes; the longest a minute shorter, so that our clock running ahead of
 * Stripe's (two machines' clocks; the checkout's strictly increasing `now`) never brings it over 24 hours. Asking
 * for exactly 24 hours was refused once in a test run, and a refused session is a buyer without a payment page.
 */
export const STRIPE_SESSION_LIMITS = {
  minMs: 31 * 60_000,
  maxMs: 24 * 3_600_000 - 60_000,
  preferredMs: 24 * 3_600_000 - 60_000,
};

/** The `unit_amount` Stripe expects for an amount; throws when it has more decimals than Stripe takes. */
export function stripeUnitAmount(amount: Amount): number {
  return Number(stripeMinorUnits(amount));
}

/** The Secrets Manager value of a Stripe connection's credentials (docs/orchestration.md#stripe). */
export interface StripeCredentials {
  secret_key: string;
  webhook_secret: string;
  /** The signing secret being replaced, accepted while a rotation overlaps. */
  previous_webhook_secret?: string;
}

/** Throws unless `credentials` are Stripe credentials of `mode`: a secret or restricted key of that mode. */
export function checkStripeCredentials(credentials: unknown, mode: Mode): StripeCredentials {
  const given = (credentials ?? {}) as Partial<Record<keyof StripeCredentials, unknown>>;
  const key = typeof given.secret_key === 'string' ? given.secret_key : '';
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(key)) {
    throw new Error('A Stripe connection needs a secret key sk_test_…/sk_live_… (or a restricted key rk_…).');
  }
  if (!key.startsWith(`sk_${mode}_`) && !key.startsWith(`rk_${mode}_`)) {
    throw new Error(
      `A ${mode}-mode Stripe connection needs a secret key sk_${mode}_... (or rk_${mode}_...).`,
    );
  }
  const secret = (value: unknown) => typeof value === 'string' && /^whsec_[A-Za-z0-9_]+$/.test(value);
  if (!secret(given.webhook_secret)) {
    throw new Error('A Stripe connection needs its webhook signing secret whsec_....');
  }
  if (given.previous_webhook_secret !== undefined && !secret(given.previous_webhook_secret)) {
    throw new Error('previous_webhook_secret must be a webhook signing secret whsec_....');
  }
  return {
    secret_key: key,
    webhook_secret: given.webhook_secret as string,
    ...(given.previous_webhook_secret
      ? { previous_webhook_secret: given.previous_webhook_secret as string }
      : {}),
  };
}

/** Events about a refund: its outcome is then fetched with `retrieveRefund`. */
const REFUND_OBJECT = 'refund';

/** Where the SDK sends API requests: Stripe itself unless a test points it at a Stripe-speaking server. */
export interface StripeEndpoint {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

export class StripePsp implements Psp {
  readonly provider = STRIPE_PROVIDER;
  readonly checkoutOrigin = 'https://checkout.stripe.com';
  readonly sessionLimits = STRIPE_SESSION_LIMITS;
  /** Stripe removes idempotency keys once they are 24 hours old. */
  readonly idempotencyWindowMs = 24 * 3_600_000;
  private readonly sdk: typeof Stripe;
  private readonly stripe: Stripe;
  private readonly webhookSecrets: string[];
  private readonly connection: PspConnection;
  private readonly livemode: boolean;

  /** `sdk` is the `stripe` module's export, loaded by the factory only when a connection uses Stripe. */
  constructor(
    sdk: typeof Stripe,
    credentials: StripeCredentials,
    connection: PspConnection,
    endpoint?: StripeEndpoint,
  ) {
    this.sdk = sdk;
    this.connection = connection;
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
   * (`pspAmountProblem`) or any line's unit amount (`pspLinesProblem`), since Stripe checks each.
   */
  async createSession(checkout: SessionRequest): Promise<PspSession> {
    const lines = stripeLines(checkout);
    const problem =
      pspAmountProblem(this.provider, checkout.amount, 'payment') ??
      pspLinesProblem(
        this.provider,
        lines.map((line) => line.unit_amount),
      );
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
    return this.stripe.checkout.sessions.create({
      mode: 'payment',
      // The buyer's reference when the address carried one (docs/api.md#buyer-references), else the link's id.
      client_reference_id: checkout.references?.client_reference_id ?? link.id,
      ...stripeBuyerQuestions(checkout),
      line_items: lines.map((item) => ({
        quantity: item.quantity,
        price_data: {
          currency: item.unit_amount.currency.toLowerCase(),
          unit_amount: stripeUnitAmount(item.unit_amount),
          product_data: { name: item.name },
        },
      })),
      ...(checkout.paymentMethods
        ? { allowed_payment_method_types: [...new Set(checkout.paymentMethods.map(stripeMethod))] }
        : {}),
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
      locale: stripeLocale(checkout.locale),
      expires_at: Math.floor(checkout.expiresAt.getTime() / 1000),
      metadata: { link_id: link.id, mode: link.mode, payment_id: checkout.paymentId },
      payment_intent_data: {
        metadata: { link_id: link.id, mode: link.mode, payment_id: checkout.paymentId },
      },
    });
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

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const session = await this.call('lookup', () => this.stripe.checkout.sessions.retrieve(sessionId));
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
      state: paid ? 'succeeded' : session.status === 'expired' ? 'expired' : 'pending',
      failure:
        session.status === 'expired'
          ? { code: 'expired', message: 'The Stripe Checkout Session expired.' }
          : null,
      paymentReference: paid ? (paymentIntent ?? session.id) : paymentIntent,
      amount:
        session.amount_total === null || !session.currency
          ? null
          : fromStripeMinorUnits(session.amount_total, session.currency),
      livemode: session.livemode,
      ...(paid ? await stripeBuyer(session) : {}),
    };
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
    const problem = pspAmountProblem(this.provider, request.amount, 'refund');
    if (problem) throw new PspRefusalError(problem);
    const refund = await this.call('refund', () =>
      this.stripe.refunds.create(
        {
          payment_intent: request.paymentReference,
          amount: stripeUnitAmount(request.amount),
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

/** Stripe for each connection whose credentials are stored under its `secret_name` (see `StripeCredentials`). */
export class StripePspFactory extends StoredCredentialsPspFactory<StripeCredentials> {
  readonly provider = STRIPE_PROVIDER;
  private readonly endpoint: StripeEndpoint | undefined;

  constructor(options: { secrets: SecretStore; endpoint?: StripeEndpoint | undefined }) {
    super({ secrets: options.secrets });
    this.endpoint = options.endpoint;
  }

  protected parse(credentials: unknown, mode: Mode): StripeCredentials {
    return checkStripeCredentials(credentials, mode);
  }

  protected async build(credentials: StripeCredentials, connection: PspConnection): Promise<Psp> {
    // Loaded here, not at module scope: functions that never serve a Stripe connection never evaluate the
    // SDK, and functions that use no PSP at all do not bundle it (docs/performance.md).
    const { default: sdk } = await import('stripe');
    return new StripePsp(sdk, credentials, connection, this.endpoint);
  }
}

/**
 * The link a Stripe event names, read from the unverified body: only for the notification route of accounts
 * configured before connections existed (`/psp/stripe/notifications`, without a connection id), to find the
 * connection whose credentials then verify it (docs/orchestration.md#migration).
 */
export function legacyStripeNotificationLink(rawBody: string): { linkId: string; mode: Mode } | undefined {
  try {
    const event = JSON.parse(rawBody) as {
      livemode?: boolean;
      data?: {
        object?: {
          object?: string;
          client_reference_id?: string;
          metadata?: { mode?: string; link_id?: string };
        };
      };
    };
    const object = event.data?.object;
    // Our sessions name their link in `metadata.link_id`; sessions from before it, in `client_reference_id`.
    const linkId = object?.metadata?.link_id ?? object?.client_reference_id;
    if (object?.object !== 'checkout.session' || typeof linkId !== 'string') return undefined;
    const mode = MODES.includes(object.metadata?.mode as Mode)
      ? (object.metadata?.mode as Mode)
      : event.livemode
        ? 'live'
        : 'test';
    return { linkId, mode };
  } catch {
    return undefined;
  }
}

/** Regional variants Stripe Checkout speaks beside plain languages (its `locale` enum). */
const STRIPE_REGIONAL_LOCALES = new Set(['en-GB', 'fr-CA', 'es-419']);

/** Our locale tag in Stripe's `locale` spelling: the regional variant when Stripe has it, else the language. */
export function stripeLocale(tag: string): Stripe.Checkout.SessionCreateParams.Locale {
  return (
    STRIPE_REGIONAL_LOCALES.has(tag) ? tag : tag.slice(0, 2)
  ) as Stripe.Checkout.SessionCreateParams.Locale;
}

/** Our payment methods as Stripe's `allowed_payment_method_types` (docs/orchestration.md#payment-methods). */
const STRIPE_METHODS: Record<PaymentMethod, Stripe.Checkout.SessionCreateParams.AllowedPaymentMethodType> = {
  card: 'card',
  // Stripe offers the wallets on its card method.
  applepay: 'card',
  googlepay: 'card',
  ideal: 'ideal',
  bancontact: 'bancontact',
  sepa_debit: 'sepa_debit',
  paypal: 'paypal',
  eps: 'eps',
  przelewy24: 'p24',
  klarna: 'klarna',
  blik: 'blik',
  twint: 'twint',
};
const stripeMethod = (method: PaymentMethod) => STRIPE_METHODS[method];
