import { config } from '../config.ts';
import { eventQueue, now, subscriptionRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toSubscriptionResource } from '../http/api/subscription-resources.ts';
import { updateSubscriptionRequest } from '../http/api/subscription-schemas.ts';
import { validate } from '../http/validate.ts';
import { updateSubscription } from '../use-cases/subscriptions.ts';

/** PATCH /v1/subscriptions/{id}: `metadata`, and the amount of the periods not yet charged. */
export const handler = apiHandler(
  { audit: apiAudit, body: 'merge-patch' },
  async ({ principal, event, body }) => {
    const changes = validate(updateSubscriptionRequest(), body);
    const { CHECKOUT_BASE } = config();
    const subscription = await updateSubscription(
      { subscriptions: subscriptionRepository(), queue: eventQueue(), now, checkoutBase: CHECKOUT_BASE },
      principal,
      event.pathParameters?.id ?? '',
      changes,
    );
    return json(200, toSubscriptionResource(subscription, CHECKOUT_BASE));
  },
);
