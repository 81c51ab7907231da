import type { Context, ScheduledEvent } from 'aws-lambda';
import { ANSWER_ROOM_MS, CALL_BUDGETS, worstCaseMs } from '../domain/call-budgets.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { settlementSweep } from '../psp-dependencies.ts';
import { sweepSettlements } from '../use-cases/settlements.ts';

/** Connections whose payouts are read per run (each hourly, `PAYOUT_READ_INTERVAL_MS`); the rest on the next runs. */
const BATCH_SIZE = 50;
/** Stop taking connections this long before the timeout: one connection's read (its payouts' pages) fits in it. */
const SAFETY_MARGIN_MS = 6 * worstCaseMs(CALL_BUDGETS.psp) + ANSWER_ROOM_MS;

/**
 * Scheduled (lib/routes.ts `schedules`): reads the payouts of the connections due, matches them to our payments
 * and refunds, and stores them as settlements (docs/api.md#settlements).
 */
export const handler = withLambdaContext(async (_event: ScheduledEvent, context: Context) => {
  const hasTimeLeft = () => context.getRemainingTimeInMillis() > SAFETY_MARGIN_MS;
  const swept = await sweepSettlements(settlementSweep(), BATCH_SIZE, hasTimeLeft);
  if (swept.connections || swept.failed.length) logger.info('read payouts', swept);
  return swept;
});
