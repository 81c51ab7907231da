import { endedByUs, type Payment } from './payment.ts';
import { effectiveStatus, type PaymentLink } from './payment-link.ts';

/**
 * Deferred capture (docs/orchestration.md#deferred-capture): at a PSP whose session cannot be ended once the
 * buyer has approved it (an approved order), or that only authorizes until told to capture, the money moves only
 * when we capture. One payable session per link then holds by one rule: an approved attempt is captured only
 * while its link can still be paid by it, and otherwise released (never captured; voided where the PSP can).
 *
 * The capture and the end of an attempt race (the buyer's return and the PSP's notification on one side; a
 * cancel, an expiry or a replacing attempt on the other). Each claims the attempt's payment first, with a write
 * conditioned on its version (`Payment.capture`): whoever claims first wins, and the other sees the claim.
 */
export type CaptureClaim = NonNullable<Payment['capture']>;

/** What to do with an attempt its buyer approved and that awaits our capture. */
export type CaptureDecision = 'capture' | 'release';

/**
 * Capture while the link can still be paid by this attempt: the link is open (not paid, completed, canceled or
 * past its expiry), and the attempt is still pending, not released, and before its session's end. An attempt that
 * was replaced, or that a cancel or an expiry left behind, was ended, and so released (`endAttempt`); one a PATCH
 * dropped from the link is still the link's open attempt until the checkout ends it
 * (docs/orchestration.md#one-payable-session), and may be captured until then. Past its session's end it no
 * longer counts as the link's open session (`openSessions`): the checkout may have opened another, or its place
 * lapsed, and a cancel no longer ends it. Anything else is released.
 */
export function captureDecision(
  link: PaymentLink,
  payment: Pick<Payment, 'id' | 'status' | 'capture' | 'session_expires_at'>,
  now: Date,
): CaptureDecision {
  if (payment.status !== 'pending' || payment.capture === 'released') return 'release';
  if (payment.session_expires_at !== null && Date.parse(payment.session_expires_at) <= now.getTime()) {
    return 'release';
  }
  return effectiveStatus(link, now) === 'open' ? 'capture' : 'release';
}

/**
 * Claiming the attempt `payment` for a capture (`claimed`, granted only while `captureDecision` says so) or a
 * release: the claim that holds once `write` (if any) is stored conditionally on the payment's version. A settled
 * payment is released without a write (nothing to capture, nothing to end), even one claimed before: a capture
 * that failed (the buyer's funding declined) leaves its claim on a failed attempt, whose order the PSP may show
 * approved again while another attempt pays the link. A claim already on a pending payment holds, but for
 * `claimGivenUp`; a released attempt is ended unpaid in the same write (`endedByUs`).
 */
export function claimAttempt(
  link: PaymentLink,
  payment: Payment,
  wanted: CaptureClaim,
  now: Date,
): { holds: CaptureClaim; write?: Payment } {
  if (payment.status !== 'pending') return { holds: 'released' };
  if (payment.capture && !claimGivenUp(link, payment, wanted)) return { holds: payment.capture };
  const holds =
    wanted === 'claimed' && captureDecision(link, payment, now) === 'capture' ? 'claimed' : 'released';
  const claimed = holds === 'released' ? (endedByUs(payment, now) ?? payment) : payment;
  return {
    holds,
    write: { ...claimed, capture: holds, updated_at: now.toISOString(), version: payment.version + 1 },
  };
}

/**
 * A capture claimed earlier and asked for again, so its PSP still awaits it (its answer was lost, or the PSP was
 * down), beside a link that another attempt paid or completed, or a cancel ended, meanwhile: that can happen only
 * past the attempt's session's end, when the link no longer counts it as open. Capturing it then would take the
 * money twice (or on a canceled link): it is released instead. A capture still under way lands all the same and is
 * recorded as the duplicate it is. A link past its `expires_at` but still stored open keeps the claim: its expiry
 * waits for the capture (docs/orchestration.md#deferred-capture).
 */
const claimGivenUp = (link: PaymentLink, payment: Payment, wanted: CaptureClaim): boolean =>
  wanted === 'claimed' && payment.capture === 'claimed' && link.status !== 'open';
