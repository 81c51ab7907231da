import { config } from '../config.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { toSubscriptionResource } from '../http/api/subscription-resources.ts';
import { cancelSubscriptionRequest } from '../http/api/subscription-schemas.ts';
import { validate } from '../http/validate.ts';
import { subscriptionEndings } from '../psp-dependencies.ts';
import { cancelSubscription } from '../use-cases/subscriptions.ts';

/** POST /v1/subscriptions/{id}/cancel: now, or `{"at_period_end": true}`; a past-due one's update link is canceled. */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    const request = validate(cancelSubscriptionRequest(), body);
    const subscription = await cancelSubscription(
      subscriptionEndings(),
      principal,
      event.pathParameters?.id ?? '',
      { atPeriodEnd: request?.at_period_end === true, reason: 'requested' },
    );
    return json(200, toSubscriptionResource(subscription, config().CHECKOUT_BASE));
  },
);
