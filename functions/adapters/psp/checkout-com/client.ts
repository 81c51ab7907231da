import { createHmac, timingSafeEqual } from 'node:crypto';
import type PaymentLinks from 'checkout-sdk-node/dist/api/payment-links/payment-links.js';
import type Payments from 'checkout-sdk-node/dist/api/payments/payments.js';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import type { checkoutCom } from './descriptor.ts';

/** A connection's stored credentials (its descriptor's `credentials`, docs/orchestration.md#checkoutcom). */
export type CheckoutCredentials = CredentialsOf<typeof checkoutCom>;

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
