import type { Context, ScheduledEvent } from 'aws-lambda';
import { ANSWER_ROOM_MS, CALL_BUDGETS, worstCaseMs } from '../domain/call-budgets.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { subscriptionCharges } from '../psp-dependencies.ts';
import { sweepSubscriptions } from '../use-cases/subscription-charges.ts';

/** Subscriptions taken per run: a backlog drains over the following runs (one a minute on AWS). */
export const BATCH_SIZE = 1000;
/** Subscriptions charged at once: each waits on its PSP (docs/scaling.md#subscriptions-due-in-one-minute). */
export const CONCURRENCY = 25;
/**
 * Take no new subscription this long before the function's timeout: one run of one fits in it, with room to record
 * the answer. Its longest step is the cancel of an ended subscription's update link (./cancel-payment-link.ts's
 * calls: its session ended, read back, and what that read finds recorded), longer than a charge and the read of its
 * mandate's connection.
 */
const SAFETY_MARGIN_MS = 4 * worstCaseMs(CALL_BUDGETS.psp) + ANSWER_ROOM_MS;

/** Scheduled (lib/routes.ts `schedules`): charges the subscriptions that are due, and runs their other steps. */
export const handler = withLambdaContext(async (_event: ScheduledEvent, context: Context) => {
  const result = await sweepSubscriptions(subscriptionCharges(), {
    limit: BATCH_SIZE,
    concurrency: CONCURRENCY,
    hasTimeLeft: () => context.getRemainingTimeInMillis() > SAFETY_MARGIN_MS,
  });
  if (result.ran || result.failed) logger.info('charged due subscriptions', result);
  return result;
});
