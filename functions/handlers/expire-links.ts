import type { ScheduledEvent } from 'aws-lambda';
import { config } from '../config.ts';
import { eventQueue, linkRepository, now, pspSelector } from '../dependencies.ts';
import { logger } from '../logger.ts';
import { expireDueLinks } from '../use-cases/payment-links.ts';

/** Links expired per run; a backlog drains over the following runs (one a minute on AWS). */
const BATCH_SIZE = 500;

/** Scheduled (lib/routes.ts `schedules`): records `expired` for open links past `expires_at`. */
export const handler = async (_event: ScheduledEvent) => {
  const result = await expireDueLinks(
    {
      links: linkRepository(),
      queue: eventQueue(),
      pspSessions: pspSelector(),
      now,
      checkoutBase: config().CHECKOUT_BASE,
    },
    BATCH_SIZE,
  );
  if (result.expired || result.failed) logger.info('expired payment links', result);
  return result;
};
