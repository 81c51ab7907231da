import { config } from '../config.ts';
import { subscriptionRepository } from '../dependencies.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toSubscriptionResource } from '../http/api/subscription-resources.ts';
import { getSubscription } from '../use-cases/subscription-changes.ts';

/** GET /v1/subscriptions/{id} */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const subscription = await getSubscription(
    { subscriptions: subscriptionRepository() },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, toSubscriptionResource(subscription, config().CHECKOUT_BASE));
});
