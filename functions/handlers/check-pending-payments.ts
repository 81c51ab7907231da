import type { Context, ScheduledEvent } from 'aws-lambda';
import { config } from '../config.ts';
import { eventQueue, linkRepository, now, paymentRepository, pspConnections } from '../dependencies.ts';
import { ANSWER_ROOM_MS, CALL_BUDGETS, worstCaseMs } from '../domain/call-budgets.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { checkPendingPayments } from '../use-cases/payments.ts';

/** Payments checked per run; a backlog drains over the following runs (one a minute on AWS). */
const BATCH_SIZE = 200;
/** Stop taking payments this long before the function's timeout: one check (a PSP call) fits in it. */
const SAFETY_MARGIN_MS = worstCaseMs(CALL_BUDGETS.psp) + ANSWER_ROOM_MS;

/**
 * Scheduled (lib/routes.ts `schedules`): asks the PSP about payments still pending when their next check is
 * due, so a lost notification never leaves a paid link open (docs/orchestration.md#missed-notifications).
 */
export const handler = withLambdaContext(async (_event: ScheduledEvent, context: Context) => {
  const result = await checkPendingPayments(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      queue: eventQueue(),
      now,
      checkoutBase: config().CHECKOUT_BASE,
    },
    BATCH_SIZE,
    () => context.getRemainingTimeInMillis() > SAFETY_MARGIN_MS,
  );
  if (result.checked || result.failed) logger.info('checked pending payments', result);
  return result;
});
