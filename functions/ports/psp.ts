import type { PaymentLink, PspSession } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';

/** Where the PSP sends the buyer back to. */
export interface CheckoutReturn {
  /** After a completed payment: the link's `redirect_url`, or our neutral "payment received" page. */
  successUrl: string;
  /** When the buyer gives up on the PSP page: back to the checkout page, which makes or reuses a session. */
  cancelUrl: string;
  expiresAt: Date;
}

/** A verified notification, reduced to what the service acts on. */
export interface PspNotification {
  /** The PSP's own event type, for logs (`checkout.session.completed`, `sandbox.session.completed`, …). */
  type: string;
  /** Whether the type may mean "paid"; the status is then confirmed with `retrieveSession`. */
  mayBePaid: boolean;
  sessionId: string;
}

/** The true state of a checkout session, fetched from the PSP. */
export interface PspSessionStatus {
  id: string;
  /** The link the session was created for (Stripe: `client_reference_id`). */
  linkId: string | null;
  paid: boolean;
  /** The PSP's payment reference once paid (Stripe: the PaymentIntent id). */
  paymentReference: string | null;
}

/**
 * A payment service provider, bound to the credentials of one (account, mode). Adapters: the built-in sandbox
 * (functions/adapters/psp/sandbox-psp.ts) and Stripe Checkout (functions/adapters/psp/stripe-psp.ts).
 */
export interface Psp {
  readonly provider: string;
  /** Origin of the PSP-hosted page, for the checkout page's `form-action` directive. */
  readonly checkoutOrigin: string;
  /** How long its sessions may live (see `sessionExpiry` in functions/domain/checkout.ts). */
  readonly sessionLimits: { minMs: number; maxMs: number; preferredMs: number };
  /** Creates a hosted checkout session for the link. */
  createSession(link: PaymentLink, options: CheckoutReturn): Promise<PspSession>;
  /** Verifies a notification's signature over the exact raw body; throws `InvalidNotificationError`. */
  verifyNotification(rawBody: string, headers: Record<string, string | undefined>): Promise<PspNotification>;
  /** The session's true status, fetched from the PSP (a notification body alone is never trusted). */
  retrieveSession(sessionId: string): Promise<PspSessionStatus>;
  /** Ends a session so it can no longer be paid (e.g. when the merchant cancels the link). */
  expireSession(session: PspSession): Promise<void>;
}

/** Which link a notification is about, read from the unverified body only to choose the verifying PSP. */
export interface NotificationTarget {
  linkId: string;
  mode: Mode;
}

/** Builds the PSP adapter of one provider for an (account, mode). */
export interface PspFactory {
  readonly provider: string;
  /** Test mode only (the sandbox) or both modes. */
  readonly testModeOnly: boolean;
  create(account: string, mode: Mode): Promise<Psp>;
  /** The link a notification names, or undefined when the body is not this provider's format. */
  locateNotification(rawBody: string): NotificationTarget | undefined;
}
