import { config } from '../config.ts';
import { eventQueue, linkRepository, now, pspSelector } from '../dependencies.ts';
import { InvalidNotificationError } from '../domain/errors.ts';
import { apiHandler, json } from '../http/api-handler.ts';
import { logger } from '../logger.ts';
import { handlePspNotification } from '../use-cases/psp-notifications.ts';

/**
 * POST /psp/{provider}/notifications: a PSP tells us about a checkout session. 200 once the payment is recorded
 * (or was already, or the notification needs no action), so the PSP stops retrying; problem+json 4xx for
 * anything forged or unknown, 5xx only when the PSP should retry.
 */
export const handler = apiHandler({ auth: false, body: 'notification' }, async ({ event, body }) => {
  const provider = event.pathParameters?.provider ?? '';
  try {
    const result = await handlePspNotification(
      {
        links: linkRepository(),
        psps: pspSelector(),
        queue: eventQueue(),
        now,
        checkoutBase: config().CHECKOUT_BASE,
      },
      provider,
      body as string,
      event.headers,
    );
    return json(200, { received: true, outcome: result.outcome });
  } catch (error) {
    // The sender is told nothing but "not verified" (docs/checkout.md); why is for our logs.
    if (error instanceof InvalidNotificationError) {
      logger.warn('PSP notification refused', { provider, reason: error.reason });
    }
    throw error;
  }
});
