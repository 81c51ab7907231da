import type { PspConnection } from '../domain/connection.ts';
import type { Payment } from '../domain/payment.ts';
import { checkFailed, stillPending } from '../domain/payment-checks.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import { logger } from '../logger.ts';
import type { PspSessionStatus } from '../ports/psp.ts';
import { captureWhilePayable } from './deferred-capture.ts';
import type { PaymentDependencies } from './payments.ts';
import type { PspConnections } from './psp-connections.ts';
import { endAttempt, recordSessionOutcome } from './session-endings.ts';

/**
 * The sweeper of missed notifications: asks the PSP about payments still pending when their next check is due
 * (10 minutes after they started, then twice as long each time until the session can no longer be paid) and
 * records the answer exactly as a notification would. A payment whose check fails is logged and asked again
 * after the same growing waits (`checkFailed`), so it never comes first on every run ahead of the others. A
 * session past its end that its PSP still calls pending is recorded expired (`stillPending`), or failed with the
 * decline of a try its PSP refused on it (docs/orchestration.md#decline-codes); one whose money its PSP says is
 * under way stays pending until its PSP settles it (docs/orchestration.md#money-under-way).
 */
export async function checkPendingPayments(
  deps: PaymentDependencies & { psps: PspConnections },
  batchSize: number,
  hasTimeLeft: () => boolean = () => true,
): Promise<{ checked: number; failed: number }> {
  const due = await deps.payments.dueForCheck(deps.now(), batchSize);
  let checked = 0;
  let failed = 0;
  for (const { link_id, mode, id } of due) {
    if (!hasTimeLeft()) break;
    try {
      await checkPayment(deps, link_id, mode, id);
      checked++;
    } catch (error) {
      failed++;
      logger.error('Could not check a pending payment', { link_id, payment_id: id, error });
      await backOff(deps, link_id, mode, id).catch((backOffError: unknown) =>
        logger.warn('Pending payment check not postponed', { payment_id: id, error: backOffError }),
      );
    }
  }
  return { checked, failed };
}

async function backOff(deps: PaymentDependencies, linkId: string, mode: Mode, id: string): Promise<void> {
  const payment = await deps.payments.get(linkId, mode, id);
  const later = payment && checkFailed(payment, deps.now());
  if (later) await deps.payments.save(later, payment);
}

async function checkPayment(
  deps: PaymentDependencies & { psps: PspConnections },
  linkId: string,
  mode: Mode,
  id: string,
): Promise<void> {
  const [payment, link] = await Promise.all([
    deps.payments.get(linkId, mode, id),
    deps.links.get(linkId, mode),
  ]);
  if (!payment || !link || payment.status !== 'pending' || !payment.session_id) return;
  const session = {
    provider: payment.provider,
    connection_id: payment.connection_id,
    payment_id: payment.id,
    id: payment.session_id,
    url: '',
    expires_at: payment.session_expires_at ?? '',
  };
  const done = link.status === 'completed' || link.status === 'paid';
  if (done && Date.parse(session.expires_at) > deps.now().getTime()) {
    // The link takes no more payments: a session not ended when its last payment was recorded is ended now.
    const ended = await endAttempt({ ...deps, pspSessions: deps.psps }, link, session, {
      payment,
      recorded: true,
    });
    if (ended === 'open' || ended === 'under_way')
      await deps.payments.save(stillPending(payment, deps.now(), ended === 'under_way'), payment);
    return;
  }
  const connection = await deps.psps.sessionConnection(link.account, link.mode, session);
  const psp = await deps.psps.adapter(connection);
  const found = await psp.retrieveSession(payment.session_id);
  // An approved session awaiting our capture, whose notification was missed, is captured (or released) here.
  const status = await captureWhilePayable(deps, connection, psp, link, {
    ...found,
    paymentId: found.paymentId ?? payment.id,
  });
  if (status.state !== 'pending') {
    await recordSessionOutcome({ ...deps, pspSessions: deps.psps }, connection, link, {
      ...status,
      paymentId: status.paymentId ?? payment.id,
    });
    return;
  }
  // A capture claimed just now changed the payment: the next check is written on what is stored.
  const latest = found.deferredCapture ? ((await deps.payments.get(linkId, mode, id)) ?? payment) : payment;
  if (latest.status === 'pending') await recordStillPending(deps, connection, link, latest, status);
}

/**
 * The PSP still says pending: asked again later (`stillPending`, which keeps a payment whose money is under way
 * pending past its session's end); past its session's end, a payment whose PSP refused a try on it fails with that
 * decline, recorded as the PSP's own expiry would be, so that the merchant is told (`payment_link.payment_failed`).
 */
async function recordStillPending(
  deps: PaymentDependencies & { psps: PspConnections },
  connection: PspConnection,
  link: PaymentLink,
  payment: Payment,
  status: PspSessionStatus,
): Promise<void> {
  const next = stillPending(payment, deps.now(), status.paymentUnderWay === true);
  if (next.status !== 'failed') return deps.payments.save(next, payment);
  await recordSessionOutcome({ ...deps, pspSessions: deps.psps }, connection, link, {
    ...status,
    paymentId: status.paymentId ?? payment.id,
    state: 'expired',
    failure: null,
  });
}
