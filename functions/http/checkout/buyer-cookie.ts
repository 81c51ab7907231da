import { isPaymentId } from '../../domain/payment.ts';
import type { PspSession } from '../../domain/payment-link.ts';
import type { HtmlEvent } from '../html-handler.ts';

/**
 * The buyer's cookie on a reusable link's checkout page (docs/checkout.md#reusable-links): it names the payment of
 * the buyer's own last attempt, so that they get their open session back and nobody else's. It is scoped to the
 * link's page (`Path`), unreadable by scripts (`HttpOnly`; our pages have none anyway), sent on the buyer's return
 * from the PSP, a top-level navigation, but on no cross-site subrequest (`SameSite=Lax`), and lives as long as
 * the session can be paid.
 */
export const BUYER_COOKIE = 'pl_payment';

/** The payment the buyer's cookie names, when it is well formed. */
export function buyerPaymentOf(event: Pick<HtmlEvent, 'cookies'>): string | undefined {
  for (const cookie of event.cookies ?? []) {
    const separator = cookie.indexOf('=');
    if (cookie.slice(0, separator).trim() !== BUYER_COOKIE) continue;
    const value = cookie.slice(separator + 1).trim();
    if (isPaymentId(value)) return value;
  }
  return undefined;
}

/** The `Set-Cookie` value that names the buyer's session's payment on the link's page. */
export function buyerCookie(
  checkoutBase: string,
  linkId: string,
  session: PspSession,
  https: boolean,
  now: Date,
): string {
  const path = `${new URL(checkoutBase).pathname.replace(/\/$/, '')}/${linkId}`;
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expires_at) - now.getTime()) / 1000));
  return [
    `${BUYER_COOKIE}=${session.payment_id}`,
    `Path=${path}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(https ? ['Secure'] : []),
  ].join('; ');
}
