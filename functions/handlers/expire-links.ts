import type { Context, ScheduledEvent } from 'aws-lambda';
import { ANSWER_ROOM_MS, CALL_BUDGETS, worstCaseMs } from '../domain/call-budgets.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { linkEndings } from '../psp-dependencies.ts';
import { expireDueLinks } from '../use-cases/payment-links.ts';

/** Links expired per run; a backlog drains over the following runs (one a minute on AWS). */
const BATCH_SIZE = 500;
/**
 * Stop taking links this long before the function's timeout: one link fits in it, with its PSP calls (ending its
 * sessions, then reading back those whose PSP refused).
 */
const SAFETY_MARGIN_MS = 2 * worstCaseMs(CALL_BUDGETS.psp) + ANSWER_ROOM_MS;

/** Scheduled (lib/routes.ts `schedules`): records `expired` for open links past `expires_at`. */
export const handler = withLambdaContext(async (_event: ScheduledEvent, context: Context) => {
  const result = await expireDueLinks(
    linkEndings(),
    BATCH_SIZE,
    () => context.getRemainingTimeInMillis() > SAFETY_MARGIN_MS,
  );
  if (result.expired || result.failed) logger.info('expired payment links', result);
  return result;
});
