import { config } from '../config.ts';
import {
  checkoutSettingsRepository,
  linkRepository,
  now,
  observedOutcomes,
  paymentRepository,
} from '../dependencies.ts';
import { CHECKOUT_PSP_CALLS } from '../domain/call-budgets.ts';
import { drawingNeedsTables, loadFormTables } from '../domain/checkout/form-tables.ts';
import type { CheckoutView } from '../domain/checkout/views.ts';
import { resolveLocale } from '../domain/locale.ts';
import type { PaymentLink } from '../domain/payment-link.ts';
import { buyerCookie, buyerPaymentOf } from '../http/checkout/buyer-cookie.ts';
import { chosenAmount, seeOther } from '../http/checkout/form.ts';
import { messagesFor } from '../http/checkout/messages.ts';
import { checkoutReferences, referencesCookie } from '../http/checkout/references.ts';
import { checkoutPage, paymentReceivedPage, type ViewContext } from '../http/checkout/views.ts';
import { clientAddress } from '../http/client-address.ts';
import { type HtmlEvent, type HtmlResult, htmlHandler, isHttps } from '../http/html-handler.ts';
import { checkoutMandatePaymentHook, pspConnections } from '../psp-dependencies.ts';
import { captureOnReturn } from '../use-cases/buyer-returns.ts';
import { buyerOutcome, findLinkById, openCheckout } from '../use-cases/checkout.ts';

/**
 * GET and HEAD {checkout_base}/{id}; POST {checkout_base}/{id} (a buyer-chosen amount, the answers of the
 * "before you pay" form); GET
 * {checkout_base}/{id}/complete (return page when no redirect_url).
 */
export const handler = htmlHandler(async (event, lambda) => {
  const { CHECKOUT_BASE } = config();
  const id = event.pathParameters?.id ?? '';
  const method = event.requestContext.http.method;
  const context: RequestContext = {
    https: isHttps(event) || CHECKOUT_BASE.startsWith('https:'),
    locale: resolveLocale(undefined, event.headers['accept-language']),
    omitBody: method === 'HEAD',
    checkoutBase: CHECKOUT_BASE,
    canceled: event.queryStringParameters?.canceled !== undefined,
    now: now(),
  };
  if (event.routeKey.endsWith('/complete')) {
    return completePage(event, id, context, () => lambda.getRemainingTimeInMillis());
  }
  const form = method === 'POST' ? chosenAmount(event, CHECKOUT_BASE) : undefined;
  const view = await openCheckout(
    {
      links: linkRepository(),
      payments: paymentRepository(),
      mandatePayments: checkoutMandatePaymentHook(),
      psps: pspConnections(),
      now,
      checkoutBase: CHECKOUT_BASE,
      baseUrl: config().BASE_URL,
      random: Math.random,
      observed: observedOutcomes(),
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
      form: form?.answers,
      buyerPayment: buyerPaymentOf(event),
      sourceAddress: clientAddress(event, config().EDGE_ORIGIN_SECRET),
      foreign: method === 'POST' && form === undefined,
      references: checkoutReferences(event),
    },
  );
  // A reusable link's buyer keeps their own session (docs/checkout.md#reusable-links); the address's references
  // outlive the page's steps (functions/http/checkout/references.ts).
  const cookies = [
    view.kind === 'forward' && view.link.reusable
      ? buyerCookie(CHECKOUT_BASE, id, view.session, context.https, context.now)
      : undefined,
    referencesCookie(event, { checkoutBase: CHECKOUT_BASE, linkId: id, https: context.https }),
  ].filter((cookie): cookie is string => cookie !== undefined);
  const answer = await pageOf(event, view, context);
  return cookies.length > 0 ? { ...answer, cookies } : answer;
});

/** What a page's context holds before the link is known: its branding and texts come with the link. */
type RequestContext = Omit<ViewContext, 'settings' | 't'>;

/** The merchant's branding, and the link's language with its texts, for a page about `link`. */
async function brandedContext(
  event: HtmlEvent,
  link: PaymentLink | undefined,
  context: RequestContext,
): Promise<ViewContext> {
  const locale = resolveLocale(link?.locale, event.headers['accept-language']);
  const [settings, t] = await Promise.all([
    link && checkoutSettingsRepository().get(link.account, link.mode),
    messagesFor(locale),
  ]);
  return { ...context, locale, settings: settings ?? undefined, t };
}

/**
 * The checkout page of a view. Post/Redirect/Get: the page of the session opened at a chosen amount is the
 * checkout page itself, so that reloading it or coming back to it never sends the form again. A form that asks
 * an address is drawn with the form tables (its countries), loaded for it.
 */
async function pageOf(event: HtmlEvent, view: CheckoutView, context: RequestContext): Promise<HtmlResult> {
  if (event.requestContext.http.method === 'POST' && view.kind === 'forward') {
    return seeOther(`${context.checkoutBase}/${view.link.id}`, context.https);
  }
  const link = 'link' in view ? view.link : undefined;
  const drawn = view.kind === 'ask' && view.form && drawingNeedsTables(view.form.details);
  const [branded, tables] = await Promise.all([
    brandedContext(event, link, context),
    drawn ? loadFormTables() : undefined,
  ]);
  return checkoutPage(view, { ...branded, tables });
}

/**
 * Where the PSP returns a buyer when the link has no `redirect_url`: their own outcome. A PSP that takes the
 * money only when we capture returns every buyer here with their attempt (`?payment=`): it is captured first,
 * and a link with a `redirect_url` then sends them on to it (docs/orchestration.md#deferred-capture).
 */
async function completePage(
  event: HtmlEvent,
  id: string,
  context: RequestContext,
  timeLeftMs: () => number,
): Promise<HtmlResult> {
  let link = await findLinkById(linkRepository(), id);
  const attempt = event.queryStringParameters?.payment;
  if (link && attempt) {
    await captureOnReturn(
      {
        links: linkRepository(),
        payments: paymentRepository(),
        mandatePayments: checkoutMandatePaymentHook(),
        psps: pspConnections(),
        now,
        checkoutBase: context.checkoutBase,
        timeLeftMs,
      },
      link,
      attempt,
    );
    if (link.redirect_url) return seeOther(link.redirect_url, context.https);
    link = await findLinkById(linkRepository(), id);
  }
  const outcome = link && (await buyerOutcome(paymentRepository(), link, buyerPaymentOf(event)));
  return paymentReceivedPage(link, await brandedContext(event, link, context), outcome);
}
