import type { Context, ScheduledEvent } from 'aws-lambda';
import { config } from '../config.ts';
import { eventQueue, linkRepository, now, paymentRepository, refundLedger } from '../dependencies.ts';
import { ANSWER_ROOM_MS, CALL_BUDGETS, worstCaseMs } from '../domain/call-budgets.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { mandatePaymentHook, paymentRefunds, pspConnections } from '../psp-dependencies.ts';
import { checkPendingPayments } from '../use-cases/pending-payments.ts';
import { checkPendingRefunds } from '../use-cases/refunds.ts';

/** Payments, and links with pending refunds, checked per run; a backlog drains over the following runs. */
const BATCH_SIZE = 200;
/**
 * Stop taking work this long before the function's timeout: one check fits in it, with its PSP calls (reading the
 * session, capturing it where the PSP takes the money only then (docs/orchestration.md#deferred-capture), then,
 * for a payment that completes a reusable link, ending the other buyers' sessions and reading back those whose
 * PSP refused).
 */
const SAFETY_MARGIN_MS = 4 * worstCaseMs(CALL_BUDGETS.psp) + ANSWER_ROOM_MS;

/**
 * Scheduled (lib/routes.ts `schedules`): asks the PSPs about payments and refunds still pending when their next
 * check is due, so a lost notification never leaves a paid link open (docs/orchestration.md#missed-notifications)
 * nor a refund pending (docs/webhooks.md#refunds). Payments first: a buyer waits on them.
 */
export const handler = withLambdaContext(async (_event: ScheduledEvent, context: Context) => {
  const deps = {
    links: linkRepository(),
    ledger: refundLedger(),
    payments: paymentRepository(),
    mandatePayments: mandatePaymentHook(),
    psps: pspConnections(),
    refunds: paymentRefunds(),
    queue: eventQueue(),
    now,
    checkoutBase: config().CHECKOUT_BASE,
  };
  const hasTimeLeft = () => context.getRemainingTimeInMillis() > SAFETY_MARGIN_MS;
  const payments = await checkPendingPayments(deps, BATCH_SIZE, hasTimeLeft);
  const refunds = await checkPendingRefunds(deps, BATCH_SIZE, hasTimeLeft);
  if (payments.checked || payments.failed || refunds.checked || refunds.failed) {
    logger.info('checked pending payments and refunds', { payments, refunds });
  }
  return { payments, refunds };
});
