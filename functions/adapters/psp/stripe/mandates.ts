import type Stripe from 'stripe';
import type { PspConnection } from '../../../domain/connection.ts';
import type { MandateRef } from '../../../domain/mandates.ts';
import { amountProblem, fromPspMinorUnits, pspMinorUnits } from '../../../domain/psp-rules.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  type MandateChargeResult,
  type Psp,
  type PspFailure,
  PspRefusalError,
} from '../../../ports/psp.ts';
import { messageOf, pspFailure } from '../kit/calls.ts';
import { stripeDecline } from './declines.ts';
import type { stripe } from './descriptor.ts';
import { REUSABLE_METHODS } from './mandate-session.ts';

/**
 * Stripe's mandates (docs/subscriptions.md#stripe): the PaymentMethod a Checkout Session saved on its Customer
 * (./mandate-session.ts), charged for each renewal by an off-session PaymentIntent confirmed on creation, under the
 * attempt's idempotency key. A decline (402, `StripeCardError`) is an answer with its class (./declines.ts), never
 * Stripe failing; only no answer, a 409, a 429 or a 5xx leave the outcome unknown.
 */

/** What the session is read with: the saved PaymentMethod, whichever intent saved it. */
const EXPAND = ['payment_intent.payment_method', 'setup_intent.payment_method'];

type Opened = Awaited<ReturnType<HoldsMandates['mandateOf']>>;

const expanded = <T extends { id: string }>(field: string | T | null | undefined): T | null =>
  field && typeof field !== 'string' ? field : null;

const idOf = (field: string | { id: string } | null | undefined): string | null =>
  typeof field === 'string' ? field : (field?.id ?? null);

/** "Visa •••• 4242", "SEPA Direct Debit •••• 3000": all Stripe tells of the method, no card data; null for a wallet. */
function displayOf({ card, sepa_debit }: Stripe.PaymentMethod): string | null {
  if (card) return `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} •••• ${card.last4}`;
  return sepa_debit?.last4 ? `SEPA Direct Debit •••• ${sepa_debit.last4}` : null;
}

export class StripeMandates implements HoldsMandates {
  /** Stripe keeps an idempotency key, and replays its first answer (a 402 too), for 24 hours. */
  readonly chargeIdempotencyWindowMs = 24 * 3_600_000;
  private readonly descriptor: typeof stripe;
  private readonly sdk: typeof Stripe;
  private readonly stripe: Stripe;
  private readonly connection: PspConnection;

  /** `client` is the connection's adapter's (./adapter.ts): one SDK client per connection. */
  constructor(descriptor: typeof stripe, sdk: typeof Stripe, client: Stripe, connection: PspConnection) {
    this.descriptor = descriptor;
    this.sdk = sdk;
    this.stripe = client;
    this.connection = connection;
  }

  /**
   * The PaymentMethod the completed session saved on its Customer: the first payment's (payment mode) or the setup's
   * (a trial). Pending while the session is not complete or its intent is still processing.
   */
  async mandateOf(session: { id: string }): Promise<Opened> {
    const found = await this.call(() =>
      this.stripe.checkout.sessions.retrieve(session.id, { expand: EXPAND }),
    );
    if (found.livemode !== (this.connection.mode === 'live')) {
      return { state: 'none', reason: 'A Stripe Checkout Session of the other mode.' };
    }
    if (found.status !== 'complete') return { state: 'pending' };
    const intent = expanded<Stripe.PaymentIntent | Stripe.SetupIntent>(
      found.mode === 'setup' ? found.setup_intent : found.payment_intent,
    );
    const method = expanded<Stripe.PaymentMethod>(intent?.payment_method);
    if (!intent || !method) {
      return intent?.status === 'processing'
        ? { state: 'pending' }
        : { state: 'none', reason: 'The Stripe Checkout Session saved no payment method.' };
    }
    const customer = idOf(method.customer) ?? idOf(found.customer);
    if (!customer || !REUSABLE_METHODS.includes(method.type)) {
      return {
        state: 'none',
        reason: `Stripe saved no ${method.type} payment method on a Customer that can be charged again.`,
      };
    }
    const mandate: MandateRef = {
      connection_id: this.connection.id,
      provider: this.connection.provider,
      customer,
      reference: method.id,
      method: method.type,
      display: displayOf(method),
    };
    return { state: 'ready', mandate };
  }

  /**
   * An off-session PaymentIntent confirmed on creation, for the mandate's method only: with Stripe's automatic
   * payment methods instead (its default), confirming asks a `return_url` even of a saved card. An amount Stripe
   * would refuse (below its minimum charge, after a change of the subscription's amount) is refused without
   * calling it.
   */
  async chargeMandate(charge: MandateCharge): Promise<MandateChargeResult> {
    const problem = amountProblem(this.descriptor.amounts, charge.amount, 'payment');
    if (problem) throw new PspRefusalError(problem);
    const params: Stripe.PaymentIntentCreateParams = {
      amount: Number(pspMinorUnits(this.descriptor.amounts, charge.amount)),
      currency: charge.amount.currency.toLowerCase(),
      customer: charge.mandate.customer,
      payment_method: charge.mandate.reference,
      allowed_payment_method_types: [
        charge.mandate.method as Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType,
      ],
      off_session: true,
      confirm: true,
      description: charge.description,
      metadata: {
        subscription_id: charge.subscriptionId,
        payment_id: charge.paymentId,
        period: String(charge.period),
        mode: this.connection.mode,
      },
    };
    try {
      const intent = await this.stripe.paymentIntents.create(params, {
        idempotencyKey: charge.idempotencyKey,
      });
      return resultOf(this.descriptor, intent);
    } catch (error) {
      return this.declined(error);
    }
  }

  async retrieveCharge(reference: string): Promise<MandateChargeResult> {
    return resultOf(this.descriptor, await this.call(() => this.stripe.paymentIntents.retrieve(reference)));
  }

  /**
   * A charge's error as its answer: a card error is a decline; Stripe's 400 on the method or the Customer (detached,
   * deleted) says the mandate is gone. Anything else throws (`failure`).
   */
  private declined(error: unknown): MandateChargeResult {
    const { errors } = this.sdk;
    if (error instanceof errors.StripeCardError) {
      const decline = stripeDecline(error);
      const reference = error.payment_intent?.id ?? null;
      return { state: 'failed', reference, decline, mandateUsable: decline.class !== 'hard' };
    }
    if (
      error instanceof errors.StripeInvalidRequestError &&
      (error.param === 'payment_method' || error.param === 'customer')
    ) {
      const decline = {
        class: 'hard' as const,
        code: `stripe:${error.code ?? 'invalid_payment_method'}`,
        message: error.message,
      };
      return { state: 'failed', reference: null, decline, mandateUsable: false };
    }
    throw this.failure(error);
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(error);
    }
  }

  /**
   * Stripe's other errors: an `invalid_request_error` is a refusal (a bug of ours, the same each time: not sent
   * again as if unknown); refused credentials as for sessions; no answer, 409 (a request under the same key in
   * progress), an `idempotency_error`, 429 and 5xx are Stripe failing, the outcome unknown.
   */
  private failure(error: unknown): PspFailure {
    const { errors } = this.sdk;
    if (error instanceof errors.StripeInvalidRequestError) {
      return new PspRefusalError(`Stripe refused the charge: ${error.message}`, { cause: error });
    }
    return pspFailure(error, 'lookup', {
      psp: 'Stripe',
      status: error instanceof errors.StripeError ? error.statusCode : undefined,
      reason: messageOf(error),
    });
  }
}

/** A PaymentIntent of a renewal as its outcome. */
function resultOf(descriptor: typeof stripe, intent: Stripe.PaymentIntent): MandateChargeResult {
  switch (intent.status) {
    case 'succeeded':
      return {
        state: 'succeeded',
        reference: intent.id,
        amount: fromPspMinorUnits(descriptor.amounts, intent.amount_received, intent.currency),
      };
    case 'requires_payment_method':
    case 'requires_action':
    case 'canceled': {
      const error = intent.last_payment_error;
      const decline = stripeDecline(
        error ?? {
          code: intent.status === 'requires_action' ? 'authentication_required' : intent.status,
          message: `The Stripe PaymentIntent is ${intent.status}.`,
        },
      );
      return { state: 'failed', reference: intent.id, decline, mandateUsable: decline.class !== 'hard' };
    }
    default:
      // processing (a SEPA Direct Debit, days long), or not yet confirmed.
      return { state: 'pending', reference: intent.id };
  }
}

/** The Stripe adapter with its mandates: the methods of `HoldsMandates` beside the core `Psp`'s. */
export function withStripeMandates<T extends Psp>(psp: T, mandates: StripeMandates): T & HoldsMandates {
  return Object.assign(psp, {
    chargeIdempotencyWindowMs: mandates.chargeIdempotencyWindowMs,
    mandateOf: mandates.mandateOf.bind(mandates),
    chargeMandate: mandates.chargeMandate.bind(mandates),
    retrieveCharge: mandates.retrieveCharge.bind(mandates),
  });
}
