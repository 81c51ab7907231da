import { config } from '../config.ts';
import { eventQueue, linkRepository, now, pspSelector } from '../dependencies.ts';
import { apiHandler, json } from '../http/api-handler.ts';
import { handlePspNotification } from '../use-cases/psp-notifications.ts';

/**
 * POST /psp/{provider}/notifications: a PSP tells us about a checkout session. 200 once the payment is recorded
 * (or was already, or the notification needs no action), so the PSP stops retrying; problem+json 4xx for
 * anything forged or unknown, 5xx only when the PSP should retry.
 */
export const handler = apiHandler({ auth: false, body: 'none' }, async ({ event }) => {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const result = await handlePspNotification(
    {
      links: linkRepository(),
      psps: pspSelector(),
      queue: eventQueue(),
      now,
      checkoutBase: config().CHECKOUT_BASE,
    },
    event.pathParameters?.provider ?? '',
    body,
    event.headers,
  );
  return json(200, { received: true, outcome: result.outcome });
});
