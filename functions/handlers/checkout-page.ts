import { config } from '../config.ts';
import {
  checkoutSettingsRepository,
  linkRepository,
  now,
  paymentRepository,
  pspConnections,
} from '../dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../domain/call-budgets.ts';
import { resolveLocale } from '../domain/locale.ts';
import { buyerCookie, buyerPaymentOf } from '../http/buyer-cookie.ts';
import { chosenAmount, seeOther } from '../http/checkout-form.ts';
import { checkoutPage, paymentReceivedPage, type ViewContext } from '../http/checkout-views.ts';
import { htmlHandler, isHttps } from '../http/html-handler.ts';
import { buyerOutcome, findLinkById, openCheckout } from '../use-cases/checkout.ts';

/**
 * GET and HEAD {checkout_base}/{id}; POST {checkout_base}/{id} (a buyer-chosen amount); GET
 * {checkout_base}/{id}/complete (return page when no redirect_url).
 */
export const handler = htmlHandler(async (event, lambda) => {
  const { CHECKOUT_BASE } = config();
  const id = event.pathParameters?.id ?? '';
  const method = event.requestContext.http.method;
  const acceptLanguage = event.headers['accept-language'];
  const context: ViewContext = {
    https: isHttps(event) || CHECKOUT_BASE.startsWith('https:'),
    locale: resolveLocale(undefined, acceptLanguage),
    omitBody: method === 'HEAD',
    checkoutBase: CHECKOUT_BASE,
    canceled: event.queryStringParameters?.canceled !== undefined,
    now: now(),
  };
  const buyerPayment = buyerPaymentOf(event);
  if (event.routeKey.endsWith('/complete')) {
    const link = await findLinkById(linkRepository(), id);
    const settings = link && (await checkoutSettingsRepository().get(link.account, link.mode));
    const paid = link && (await buyerOutcome(paymentRepository(), link, buyerPayment));
    return paymentReceivedPage(
      link,
      { ...context, locale: resolveLocale(link?.locale, acceptLanguage), settings: settings ?? undefined },
      paid,
    );
  }
  const form = method === 'POST' ? chosenAmount(event, CHECKOUT_BASE) : undefined;
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
      via: form?.via ?? event.queryStringParameters?.via,
      returned: context.canceled,
      amount: form?.amount,
      buyerPayment,
      sourceAddress: event.requestContext.http.sourceIp,
      foreign: method === 'POST' && form === undefined,
    },
  );
  // A reusable link's buyer keeps their own session (docs/checkout.md#reusable-links).
  const cookies =
    view.kind === 'forward' && view.link.reusable
      ? [buyerCookie(CHECKOUT_BASE, id, view.session, context.https, context.now)]
      : undefined;
  // Post/Redirect/Get: the page of the session opened at the chosen amount is the checkout page itself, so that
  // reloading it or coming back to it never sends the form again.
  if (method === 'POST' && view.kind === 'forward') {
    const redirect = seeOther(`${CHECKOUT_BASE}/${view.link.id}`, context.https);
    return cookies ? { ...redirect, cookies } : redirect;
  }
  const link = 'link' in view ? view.link : undefined;
  const settings = link && (await checkoutSettingsRepository().get(link.account, link.mode));
  const page = checkoutPage(view, {
    ...context,
    locale: resolveLocale(link?.locale, acceptLanguage),
    settings: settings ?? undefined,
  });
  return cookies ? { ...page, cookies } : page;
});
