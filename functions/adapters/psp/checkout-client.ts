import { createHmac, timingSafeEqual } from 'node:crypto';
import type PaymentLinks from 'checkout-sdk-node/dist/api/payment-links/payment-links.js';
import type Payments from 'checkout-sdk-node/dist/api/payments/payments.js';
import { CALL_BUDGETS } from '../../domain/call-budgets.ts';
import type { Mode } from '../../domain/principal.ts';

/** A connection's stored credentials (docs/orchestration.md#checkoutcom). */
export interface CheckoutCredentials {
  /** A secret key of the connection's mode: `sk_sbox_…` in the sandbox, `sk_…` live. */
  secret_key: string;
  /** The processing channel (`pc_…`) every payment link is made on. */
  processing_channel_id: string;
  /** The signature key of the connection's webhook (`Cko-Signature`), and the one it replaces while a rotation overlaps. */
  signature_key: string;
  previous_signature_key?: string;
  /** The merchant-specific subdomain (the first 8 characters of the client id); absent: the shared API hosts. */
  subdomain?: string;
}

const SANDBOX_KEY = /^sk_sbox_[a-z2-7]{26}[a-z2-7*#$=]$/;
const LIVE_KEY = /^sk_[a-z2-7]{26}[a-z2-7*#$=]$/;
const PROCESSING_CHANNEL = /^pc_[a-z2-7]{26}$/;
const SUBDOMAIN = /^[0-9a-z]{8,11}$/;

const SHAPE =
  'A Checkout.com connection needs {"secret_key": "sk_sbox_…" (test) or "sk_…" (live), "processing_channel_id": "pc_…", "signature_key"} and, optionally, "subdomain".';

/** Throws unless `credentials` are Checkout.com credentials of the connection's `mode`. */
export function checkCheckoutCredentials(credentials: unknown, mode: Mode): CheckoutCredentials {
  const given = (credentials ?? {}) as Partial<Record<keyof CheckoutCredentials, unknown>>;
  const text = (value: unknown) =>
    typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  const secretKey = text(given.secret_key);
  const channel = text(given.processing_channel_id);
  const signatureKey = text(given.signature_key);
  const previousSignatureKey = text(given.previous_signature_key);
  const subdomain = text(given.subdomain);
  if (!secretKey || !channel || !signatureKey || !PROCESSING_CHANNEL.test(channel)) throw new Error(SHAPE);
  if (subdomain !== undefined && !SUBDOMAIN.test(subdomain)) throw new Error(SHAPE);
  const keyMode = SANDBOX_KEY.test(secretKey) ? 'test' : LIVE_KEY.test(secretKey) ? 'live' : undefined;
  if (!keyMode) throw new Error(SHAPE);
  if (keyMode !== mode) {
    throw new Error(
      `A ${mode}-mode Checkout.com connection needs a ${mode === 'test' ? 'sandbox (sk_sbox_…)' : 'live (sk_…)'} secret key.`,
    );
  }
  return {
    secret_key: secretKey,
    processing_channel_id: channel,
    signature_key: signatureKey,
    ...(previousSignatureKey ? { previous_signature_key: previousSignatureKey } : {}),
    ...(subdomain ? { subdomain } : {}),
  };
}

/**
 * Whether `signature` (the `Cko-Signature` header) is the HMAC-SHA256 of the exact raw body with one of `keys`,
 * in hex (docs.checkout.com "Webhooks: verify the signature").
 */
export function validCkoSignature(rawBody: string, signature: string | undefined, keys: string[]): boolean {
  if (!signature || !/^[0-9a-f]{64}$/i.test(signature)) return false;
  const given = Buffer.from(signature.toLowerCase(), 'hex');
  return keys.some((key) =>
    timingSafeEqual(given, createHmac('sha256', key).update(rawBody, 'utf8').digest()),
  );
}

/** The part of the SDK the adapter uses, loaded by the factory. */
export interface CheckoutSdk {
  paymentLinks: PaymentLinks;
  payments: Payments;
}

/**
 * Loaded here, not at module scope: only functions that talk to Checkout.com evaluate the SDK
 * (docs/performance.md). `apiUrl` is the SDK's own `host` option (tests: a Checkout.com-speaking server).
 * Without a subdomain the SDK is told to use the shared hosts (`useLegacyDomain`), which it otherwise refuses.
 */
export async function loadCheckoutSdk(
  credentials: CheckoutCredentials,
  apiUrl: string | undefined,
): Promise<CheckoutSdk> {
  const { default: Checkout } = await import('checkout-sdk-node');
  const where = apiUrl
    ? { host: apiUrl.replace(/\/$/, '') }
    : credentials.subdomain
      ? { subdomain: credentials.subdomain }
      : { useLegacyDomain: true };
  const client = new Checkout(credentials.secret_key, { ...where, timeout: CALL_BUDGETS.psp.timeoutMs });
  return { paymentLinks: client.paymentLinks, payments: client.payments };
}
