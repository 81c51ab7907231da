import { config } from '../config.ts';
import { cancelLinkStore, now, subscriptionRepository } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { cancelLinkUrl } from '../http/api/subscription-resources.ts';
import { emptyRequest, validate } from '../http/validate.ts';
import { createCancelLink } from '../use-cases/subscriptions.ts';

/** POST /v1/subscriptions/{id}/cancel-link: a single-use page where the buyer cancels, without signing in. */
export const handler = apiHandler(
  { audit: apiAudit, body: 'optional-json' },
  async ({ principal, event, body }) => {
    validate(emptyRequest(), body);
    const link = await createCancelLink(
      { subscriptions: subscriptionRepository(), cancelLinks: cancelLinkStore(), now },
      principal,
      event.pathParameters?.id ?? '',
    );
    return json(201, {
      object: 'subscription_cancel_link',
      subscription_id: link.subscription.id,
      url: cancelLinkUrl(config().BASE_URL, link.token),
      expires_at: link.expires_at,
    });
  },
);
