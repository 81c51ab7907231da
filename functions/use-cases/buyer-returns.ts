import type { PaymentLink } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import { canCaptureLater } from '../ports/psp-capabilities.ts';
import { LEFT_TO_THE_OUTBOX } from './checkout.ts';
import { captureWhilePayable } from './deferred-capture.ts';
import type { PaymentDependencies } from './payments.ts';
import type { PspConnections } from './psp-connections.ts';
import { recordSessionOutcome } from './session-endings.ts';

export type BuyerReturnDependencies = Omit<PaymentDependencies, 'queue'> & {
  psps: Pick<PspConnections, 'sessionConnection' | 'adapter' | 'endSession' | 'expireSession'>;
  /** What is left of the function's time: the link's other sessions are ended only while that fits. */
  timeLeftMs?: () => number;
};

/**
 * The buyer is back on our return address from a PSP that takes the money only when we capture
 * (docs/orchestration.md#deferred-capture): their approved attempt is captured now, while the link can still be
 * paid by it (`captureWhilePayable`), and recorded, so that the page they see, and the link's `redirect_url`
 * they go on to, already know the outcome. The PSP's notification may have done it first: capturing again is
 * the same capture (the PSP's idempotency key is our payment id). An approval at another amount than the
 * attempt's is voided, never captured (`captureWhilePayable`). A capture that paid the link ends the link's other
 * open sessions (`recordSessionOutcome`), as a notification does. Best effort: whatever fails is logged, and the
 * notification or the missed-notification sweeper captures, or releases, later. At most five PSP calls, the
 * checkout page's: the session read back, the capture (`captureCalls`), and a round of ending the others.
 */
export async function captureOnReturn(
  deps: BuyerReturnDependencies,
  link: PaymentLink,
  paymentId: string,
): Promise<void> {
  try {
    const payment = await deps.payments.get(link.id, link.mode, paymentId);
    if (payment?.status !== 'pending' || !payment.session_id) return;
    const session = {
      provider: payment.provider,
      connection_id: payment.connection_id,
      payment_id: payment.id,
      id: payment.session_id,
      url: '',
      expires_at: payment.session_expires_at ?? '',
    };
    const connection = await deps.psps.sessionConnection(link.account, link.mode, session);
    const psp = await deps.psps.adapter(connection);
    if (!canCaptureLater(psp)) return;
    const found = await psp.retrieveSession(payment.session_id);
    const status = await captureWhilePayable(deps, connection, psp, link, {
      ...found,
      paymentId: found.paymentId ?? payment.id,
    });
    if (status.state === 'pending') return;
    // The checkout's function may not send to the queue: the event goes with the link's write, to the outbox.
    const recording = { ...deps, queue: LEFT_TO_THE_OUTBOX, pspSessions: deps.psps };
    await recordSessionOutcome(recording, connection, link, status);
  } catch (error) {
    logger.warn('Approved payment not captured on the buyer’s return: left to its notification', {
      link_id: link.id,
      payment_id: paymentId,
      error,
    });
  }
}
