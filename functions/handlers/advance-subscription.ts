import { config } from '../config.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toSubscriptionResource } from '../http/api/subscription-resources.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { subscriptionCharges } from '../psp-dependencies.ts';
import { advanceSubscription } from '../use-cases/subscription-charges.ts';

/**
 * POST /v1/test-helpers/subscriptions/{id}/advance: test mode's clock for one subscription
 * (docs/subscriptions.md#time-under-test); a live key's subscription is not found.
 */
export const handler = apiHandler({ body: 'optional-json' }, async ({ principal, event, body }) => {
  validate(emptyRequest(), body);
  const subscription = await advanceSubscription(
    subscriptionCharges(),
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, toSubscriptionResource(subscription, config().CHECKOUT_BASE));
});
