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
 * past its expiry), and the attempt is still pending and not released. An attempt that was replaced, or that a
 * cancel or an expiry left behind, was ended, and so released (`endAttempt`); one a PATCH dropped from the link is
 * still the link's open attempt until the checkout ends it (docs/orchestration.md#one-payable-session), and may
 * be captured until then. Anything else is released.
 */
export function captureDecision(
  link: PaymentLink,
  payment: Pick<Payment, 'id' | 'status' | 'capture'>,
  now: Date,
): CaptureDecision {
  if (payment.status !== 'pending' || payment.capture === 'released') return 'release';
  return effectiveStatus(link, now) === 'open' ? 'capture' : 'release';
}

/**
 * Claiming the attempt `payment` for a capture (`claimed`, granted only while `captureDecision` says so) or a
 * release: the claim that holds once `write` (if any) is stored conditionally on the payment's version. A claim
 * already there holds; a settled payment is released without a write (nothing to capture, nothing to end); a
 * released attempt is ended unpaid in the same write (`endedByUs`).
 */
export function claimAttempt(
  link: PaymentLink,
  payment: Payment,
  wanted: CaptureClaim,
  now: Date,
): { holds: CaptureClaim; write?: Payment } {
  if (payment.capture) return { holds: payment.capture };
  if (payment.status !== 'pending') return { holds: 'released' };
  const holds =
    wanted === 'claimed' && captureDecision(link, payment, now) === 'capture' ? 'claimed' : 'released';
  const claimed = holds === 'released' ? (endedByUs(payment, now) ?? payment) : payment;
  return {
    holds,
    write: { ...claimed, capture: holds, updated_at: now.toISOString(), version: payment.version + 1 },
  };
}
