import { config } from '../config.ts';
import { cancelLinkStore } from '../dependencies.ts';
import { resolveLocale } from '../domain/locale.ts';
import { cancelLinkPage } from '../http/checkout/subscription-cancel-views.ts';
import { htmlHandler, isHttps } from '../http/html-handler.ts';
import { subscriptionEndings } from '../psp-dependencies.ts';
import { cancelThroughLink, readCancelLink } from '../use-cases/subscriptions.ts';

/** A buyer's cancel link (docs/subscriptions.md#cancel-links): GET /subscriptions/cancel/{token}, POST to cancel. */
export const handler = htmlHandler(async (event) => {
  const token = event.pathParameters?.token ?? '';
  // The cancel of a past-due subscription cancels its update link, which ends that link's PSP session.
  const deps = { ...subscriptionEndings(), cancelLinks: cancelLinkStore() };
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
