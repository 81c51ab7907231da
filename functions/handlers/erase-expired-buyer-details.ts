import { accountSettingsRepository, now, paymentRepository, personalDataStore } from '../dependencies.ts';
import { logger, withLambdaContext } from '../logger.ts';
import { sweepRetention } from '../use-cases/personal-data.ts';

/** Payments looked at per run; a backlog drains over the following runs. */
const BATCH_SIZE = 500;

/**
 * Scheduled (lib/routes.ts `schedules`): erases the buyer details of payments older than their (account,
 * mode)'s retention period (docs/security.md#personal-data).
 */
export const handler = withLambdaContext(async () => {
  const erased = await sweepRetention(
    {
      payments: paymentRepository(),
      personalData: personalDataStore(),
      settings: accountSettingsRepository(),
      now,
    },
    BATCH_SIZE,
  );
  if (erased) logger.info('retention: buyer details erased', { erased });
  return { erased };
});
