import { config } from '../config.ts';
import { linkRepository, now, paymentRepository, pspConnections } from '../dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../domain/call-budgets.ts';
import { checkoutPage, paymentReceivedPage, type ViewContext } from '../http/checkout-views.ts';
import { preferredLocale } from '../http/html.ts';
import { htmlHandler, isHttps } from '../http/html-handler.ts';
import { findLinkById, openCheckout } from '../use-cases/checkout.ts';

/** GET and HEAD {checkout_base}/{id}; GET {checkout_base}/{id}/complete (return page when no redirect_url). */
export const handler = htmlHandler(async (event, lambda) => {
  const { CHECKOUT_BASE } = config();
  const id = event.pathParameters?.id ?? '';
  const method = event.requestContext.http.method;
  const context: ViewContext = {
    https: isHttps(event) || CHECKOUT_BASE.startsWith('https:'),
    locale: preferredLocale(event.headers['accept-language']),
    omitBody: method === 'HEAD',
    checkoutBase: CHECKOUT_BASE,
    canceled: event.queryStringParameters?.canceled !== undefined,
    now: now(),
  };
  if (event.routeKey.endsWith('/complete')) {
    return paymentReceivedPage(await findLinkById(linkRepository(), id), context);
  }
  const view = await openCheckout(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      psps: pspConnections(),
      now,
      checkoutBase: CHECKOUT_BASE,
      baseUrl: config().BASE_URL,
      random: Math.random,
      timeLeftMs: () => lambda.getRemainingTimeInMillis(),
      maxPspCalls: CHECKOUT_PSP_CALLS,
    },
    {
      id,
      method,
      headers: event.headers,
      via: event.queryStringParameters?.via,
      returned: context.canceled,
    },
  );
  return checkoutPage(view, context);
});
