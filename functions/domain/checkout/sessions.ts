import type { Payment } from '../payment.ts';
import type { LinkSession, PaymentLink, PspSession } from '../payment-link.ts';

/**
 * The session model (docs/orchestration.md#sessions): every PSP session is the session of one payment (an
 * attempt), recorded before the buyer is sent to it. An attempt is *open* while its payment is pending and its
 * session has not reached its expiry, or, past it, while its PSP says the buyer's money is under way
 * (`Payment.money_under_way`: a bank debit, which may still pay the link): as far as we know it can still take
 * money. The link's `psp_session` names
 * the open attempt the page shows now. A single-use link has at most one open attempt: a new session is opened
 * only once every open attempt is confirmed ended by its PSP (or paid, which ends the link).
 */

/** A session is reused only while the buyer still has this long to pay on it. */
export const SESSION_REUSE_MARGIN_MS = 5 * 60_000;

/**
 * Calls that ending a session may take: the end, and, when its PSP refuses, reading the session back. A session
 * is only asked to end with both left, so a refusal is never left unexplained.
 */
export const CALLS_TO_END_A_SESSION = 2;

/**
 * The open attempts of a link (see the session model above), the one the link shows first, then newest first.
 * A session stored on the link whose payment was never recorded counts too.
 */
export function openSessions(link: PaymentLink, payments: readonly Payment[], now: Date): PspSession[] {
  const shown = link.psp_session;
  const open: PspSession[] = payments
    .filter(
      (payment) =>
        payment.status === 'pending' &&
        payment.session_id !== null &&
        payment.session_expires_at !== null &&
        (payment.money_under_way === true || Date.parse(payment.session_expires_at) > now.getTime()),
    )
    .map((payment) => ({
      provider: payment.provider,
      connection_id: payment.connection_id,
      payment_id: payment.id,
      id: payment.session_id as string,
      url:
        payment.session_url ??
        (shown?.payment_id === payment.id && shown.id === payment.session_id ? shown.url : ''),
      expires_at: payment.session_expires_at as string,
      ...(payment.amount ? { amount: payment.amount } : {}),
    }));
  if (
    shown &&
    Date.parse(shown.expires_at) > now.getTime() &&
    !payments.some((payment) => payment.id === shown.payment_id)
  ) {
    open.push(shown);
  }
  const first = open.findIndex((session) => session.id === shown?.id);
  return first > 0 ? [open[first] as PspSession, ...open.filter((_, index) => index !== first)] : open;
}

/**
 * The link's current PSP session if it can still serve a buyer, else undefined: it must come from one of the
 * connections that may serve the link now (a disabled or removed connection's session is not reused).
 */
export function reusableSession(
  link: PaymentLink,
  connectionIds: readonly string[],
  now: Date,
): PspSession | undefined {
  const session = link.psp_session;
  if (!session?.payment_id) return undefined;
  return servesStill(session, connectionIds, now) ? session : undefined;
}

/** A session from a connection that may serve the link now, with time left for the buyer to pay on it. */
export const servesStill = (session: PspSession, connectionIds: readonly string[], now: Date): boolean =>
  connectionIds.includes(session.connection_id) &&
  Date.parse(session.expires_at) - SESSION_REUSE_MARGIN_MS > now.getTime();

/**
 * When a new PSP session should expire: `preferredMs` from now, never later than `limits.maxMs`, capped by
 * the link's own `expires_at`, but never sooner than `limits.minMs` (some PSPs refuse shorter
 * sessions; a payment confirmed after the link expired is still recorded, docs/api.md#states-expiry-and-webhooks).
 */
export function sessionExpiry(
  link: PaymentLink,
  now: Date,
  limits: { minMs: number; maxMs: number; preferredMs: number },
): Date {
  let at = now.getTime() + Math.min(limits.preferredMs, limits.maxMs);
  if (link.expires_at !== null) at = Math.min(at, Date.parse(link.expires_at));
  return new Date(Math.max(at, now.getTime() + limits.minMs));
}

/** The link with its new session, one version later: the write that stores it is conditioned on `version`. */
export function withSession(link: PaymentLink, session: LinkSession): PaymentLink {
  return { ...link, psp_session: session, version: link.version + 1 };
}
