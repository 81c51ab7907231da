import { config } from '../config.ts';
import { cancelLinkStore, eventQueue, now, subscriptionRepository } from '../dependencies.ts';
import { resolveLocale } from '../domain/locale.ts';
import { cancelLinkPage } from '../http/checkout/subscription-cancel-views.ts';
import { htmlHandler, isHttps } from '../http/html-handler.ts';
import { cancelThroughLink, readCancelLink } from '../use-cases/subscriptions.ts';

/** A buyer's cancel link (docs/subscriptions.md#cancel-links): GET /subscriptions/cancel/{token}, POST to cancel. */
export const handler = htmlHandler(async (event) => {
  const token = event.pathParameters?.token ?? '';
  const deps = {
    subscriptions: subscriptionRepository(),
    cancelLinks: cancelLinkStore(),
    queue: eventQueue(),
    now,
    checkoutBase: config().CHECKOUT_BASE,
  };
  const options = {
    https: isHttps(event) || config().BASE_URL.startsWith('https:'),
    locale: resolveLocale(undefined, event.headers['accept-language']),
    token,
  };
  if (event.requestContext.http.method === 'POST') {
    return cancelLinkPage(await cancelThroughLink(deps, token), options);
  }
  return cancelLinkPage(await readCancelLink(deps, token), options);
});
