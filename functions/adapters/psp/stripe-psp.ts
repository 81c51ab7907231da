import type Stripe from 'stripe';
import { CALL_BUDGETS } from '../../domain/call-budgets.ts';
import { InvalidNotificationError, PspNotConfiguredError } from '../../domain/errors.ts';
import { toMinorUnits } from '../../domain/money.ts';
import type { PaymentLink, PspSession } from '../../domain/payment-link.ts';
import { MODES, type Mode } from '../../domain/principal.ts';
import type {
  CheckoutReturn,
  NotificationTarget,
  Psp,
  PspFactory,
  PspNotification,
  PspSessionStatus,
} from '../../ports/psp.ts';
import type { SecretStore } from '../../ports/secret-store.ts';

export const STRIPE_PROVIDER = 'stripe';
/** Stripe Checkout Sessions live 30 minutes to 24 hours. */
export const STRIPE_SESSION_LIMITS = {
  minMs: 30 * 60_000,
  maxMs: 24 * 3_600_000,
  preferredMs: 24 * 3_600_000,
};

/**
 * Stripe's amount exponent where it differs from ISO 4217 (docs.stripe.com/currencies): MGA is zero-decimal at
 * Stripe (ISO: 2), and ISK is sent in two-decimal form although it has none (ISO: 0). Elsewhere they agree
 * (JPY 0, EUR 2, KWD 3 ...).
 */
const STRIPE_EXPONENT_OVERRIDES: Record<string, number> = { MGA: 0, ISK: 2 };

/** The `unit_amount` Stripe expects for an amount. */
export function stripeUnitAmount(amount: PaymentLink['amount']): number {
  return Number(toMinorUnits(amount, STRIPE_EXPONENT_OVERRIDES[amount.currency]));
}

/** Event types that may complete a payment; the session is then retrieved to confirm it. */
const PAYING_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/** The Secrets Manager value of an (account, mode)'s Stripe credentials (docs/checkout.md). */
export interface StripeCredentials {
  secret_key: string;
  webhook_secret: string;
}

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
  private readonly sdk: typeof Stripe;
  private readonly stripe: Stripe;
  private readonly webhookSecret: string;

  /** `sdk` is the `stripe` module's export, loaded by the factory only when an account uses Stripe. */
  constructor(sdk: typeof Stripe, credentials: StripeCredentials, endpoint?: StripeEndpoint) {
    this.sdk = sdk;
    this.stripe = new sdk(credentials.secret_key, {
      maxNetworkRetries: CALL_BUDGETS.psp.tries - 1,
      timeout: CALL_BUDGETS.psp.timeoutMs,
      telemetry: false,
      ...(endpoint ?? {}),
    });
    this.webhookSecret = credentials.webhook_secret;
  }

  async createSession(link: PaymentLink, checkout: CheckoutReturn): Promise<PspSession> {
    const session = await this.stripe.checkout.sessions.create({
      mode: 'payment',
      client_reference_id: link.id,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: link.amount.currency.toLowerCase(),
            unit_amount: stripeUnitAmount(link.amount),
            product_data: { name: link.description || `Payment ${link.id}` },
          },
        },
      ],
      success_url: checkout.successUrl,
      cancel_url: checkout.cancelUrl,
      expires_at: Math.floor(checkout.expiresAt.getTime() / 1000),
      metadata: { link_id: link.id, mode: link.mode },
      payment_intent_data: { metadata: { link_id: link.id, mode: link.mode } },
    });
    if (!session.url) throw new Error(`Stripe returned session ${session.id} without a url`);
    return {
      provider: this.provider,
      id: session.id,
      url: session.url,
      expires_at: new Date(session.expires_at * 1000).toISOString(),
    };
  }

  async verifyNotification(
    rawBody: string,
    headers: Record<string, string | undefined>,
  ): Promise<PspNotification> {
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(
        rawBody,
        headers['stripe-signature'] ?? '',
        this.webhookSecret,
      );
    } catch (error) {
      throw new InvalidNotificationError(
        error instanceof this.sdk.errors.StripeSignatureVerificationError
          ? 'The Stripe-Signature header does not verify.'
          : 'Not a Stripe event.',
      );
    }
    const object = event.data.object as { object?: string; id?: string };
    const isSession = object.object === 'checkout.session' && typeof object.id === 'string';
    return {
      type: event.type,
      mayBePaid: isSession && PAYING_EVENTS.has(event.type),
      sessionId: isSession ? (object.id as string) : '',
    };
  }

  async retrieveSession(sessionId: string): Promise<PspSessionStatus> {
    const session = await this.stripe.checkout.sessions.retrieve(sessionId);
    const paymentIntent =
      typeof session.payment_intent === 'string'
        ? session.payment_intent
        : (session.payment_intent?.id ?? null);
    return {
      id: session.id,
      linkId: session.client_reference_id,
      paid:
        session.status === 'complete' &&
        (session.payment_status === 'paid' || session.payment_status === 'no_payment_required'),
      paymentReference: paymentIntent ?? session.id,
    };
  }

  async expireSession(session: PspSession): Promise<void> {
    try {
      await this.stripe.checkout.sessions.expire(session.id);
    } catch (error) {
      // Expiring a session that is already complete or expired is a 400 from Stripe: nothing left to do.
      if (!(error instanceof this.sdk.errors.StripeInvalidRequestError)) throw error;
    }
  }
}

/**
 * Stripe for any (account, mode) whose credentials are stored under `<prefix>stripe/<account>/<mode>` as
 * `{"secret_key": "sk_…", "webhook_secret": "whsec_…"}`. Clients are kept per (account, mode) for the life of
 * the container, like every other client.
 */
export class StripePspFactory implements PspFactory {
  readonly provider = STRIPE_PROVIDER;
  readonly testModeOnly = false;
  private readonly secrets: SecretStore;
  private readonly secretPrefix: string;
  private readonly endpoint: StripeEndpoint | undefined;
  private readonly clients = new Map<string, Promise<Psp>>();

  constructor(options: {
    secrets: SecretStore;
    secretPrefix: string;
    endpoint?: StripeEndpoint | undefined;
  }) {
    this.secrets = options.secrets;
    this.secretPrefix = options.secretPrefix;
    this.endpoint = options.endpoint;
  }

  static secretName(prefix: string, account: string, mode: Mode): string {
    return `${prefix}${STRIPE_PROVIDER}/${account}/${mode}`;
  }

  create(account: string, mode: Mode): Promise<Psp> {
    const key = `${account}/${mode}`;
    let psp = this.clients.get(key);
    if (!psp) {
      psp = this.build(account, mode);
      psp.catch(() => this.clients.delete(key));
      this.clients.set(key, psp);
    }
    return psp;
  }

  private async build(account: string, mode: Mode): Promise<Psp> {
    const raw = await this.secrets.get(StripePspFactory.secretName(this.secretPrefix, account, mode));
    const credentials = raw ? (JSON.parse(raw) as Partial<StripeCredentials>) : undefined;
    if (!credentials?.secret_key || !credentials.webhook_secret) {
      throw new PspNotConfiguredError('Stripe credentials are missing for this account and mode.');
    }
    // Loaded here, not at module scope: functions that never serve a Stripe account never evaluate the SDK,
    // and functions that use no PSP at all do not bundle it (docs/performance.md).
    const { default: sdk } = await import('stripe');
    return new StripePsp(sdk, credentials as StripeCredentials, this.endpoint);
  }

  locateNotification(rawBody: string): NotificationTarget | undefined {
    try {
      const event = JSON.parse(rawBody) as {
        livemode?: boolean;
        data?: { object?: { object?: string; client_reference_id?: string; metadata?: { mode?: string } } };
      };
      const object = event.data?.object;
      if (object?.object !== 'checkout.session' || typeof object.client_reference_id !== 'string')
        return undefined;
      const mode = MODES.includes(object.metadata?.mode as Mode)
        ? (object.metadata?.mode as Mode)
        : event.livemode
          ? 'live'
          : 'test';
      return { linkId: object.client_reference_id, mode };
    } catch {
      return undefined;
    }
  }
}
