import { config } from '../config.ts';
import {
  eventQueue,
  linkRepository,
  now,
  paymentRepository,
  refundLedger,
  unknownIdLimiter,
} from '../dependencies.ts';
import { InvalidNotificationError } from '../domain/errors.ts';
import { json, publicApiHandler } from '../http/api/api-handler.ts';
import { logger } from '../logger.ts';
import { once } from '../once.ts';
import { mandatePaymentHook, pspConnections } from '../psp-dependencies.ts';
import {
  handlePspNotification,
  type NotificationAddress,
  UnknownNotificationIds,
} from '../use-cases/psp-notifications.ts';

/** Per container: the ids it found unknown are remembered here; the count per connection is shared. */
const unknownIds = once(() => new UnknownNotificationIds(unknownIdLimiter()));

/**
 * POST /psp/{provider}/notifications/{connection_id}: a PSP tells us about a checkout session. 200 once the
 * payment is recorded (or was already, or the notification needs no action, or is about something we did not
 * create), so the PSP stops retrying; problem+json 4xx for anything forged or that the PSP does not know, 5xx
 * only when the PSP should retry. The route without a connection id serves accounts configured with one PSP
 * before connections existed, when that PSP's descriptor says how to find their link (docs/orchestration.md#migration).
 */
export const handler = publicApiHandler({ body: 'notification' }, async ({ event, body }) => {
  const connectionId = event.pathParameters?.connection_id;
  const raw = body as string;
  // A former id of a PSP in the address (one configured at the PSP before its rename) is that PSP's.
  const named = event.pathParameters?.provider ?? '';
  const descriptor = pspConnections().descriptor(named);
  const provider = descriptor?.id ?? named;
  const address: NotificationAddress =
    connectionId !== undefined ? { connectionId } : { legacyLink: descriptor?.legacy?.notificationLink(raw) };
  try {
    const { outcome, psp } = await handlePspNotification(
      {
        links: linkRepository(),
        ledger: refundLedger(),
        payments: paymentRepository(),
        mandatePayments: mandatePaymentHook(),
        psps: pspConnections(),
        queue: eventQueue(),
        now,
        checkoutBase: config().CHECKOUT_BASE,
        unknownIds: unknownIds(),
      },
      provider,
      address,
      raw,
      event.headers,
    );
    if (psp.notificationAck) {
      return {
        statusCode: 200,
        headers: { 'content-type': psp.notificationAck.contentType },
        body: psp.notificationAck.body,
      };
    }
    return json(200, { received: true, outcome });
  } catch (error) {
    // The sender is told nothing but "not verified" (docs/checkout.md); why is for our logs.
    if (error instanceof InvalidNotificationError) {
      logger.warn('PSP notification refused', {
        provider,
        connection_id: connectionId,
        reason: error.reason,
      });
    }
    throw error;
  }
});
