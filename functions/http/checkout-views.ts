import type { PaymentLink } from '../domain/payment-link.ts';
import { type CheckoutView, VIA_ANOTHER_PROVIDER } from '../use-cases/checkout.ts';
import { formatAmount, type Html, html, htmlPage } from './html.ts';
import type { HtmlResult } from './html-handler.ts';

export interface ViewContext {
  https: boolean;
  locale: string;
  omitBody: boolean;
  checkoutBase: string;
  /** The buyer came back from the PSP without paying: show the link, do not forward again at once. */
  canceled: boolean;
  now: Date;
}

function summary(link: PaymentLink, context: ViewContext): Html {
  return html`<p class="amount">${formatAmount(link.amount, context.locale)}</p>
${link.description ? html`<p>${link.description}</p>` : undefined}`;
}

export function checkoutPage(view: CheckoutView, context: ViewContext): HtmlResult {
  const page = { https: context.https, omitBody: context.omitBody };
  switch (view.kind) {
    case 'not_found':
      return htmlPage({
        ...page,
        status: 404,
        title: 'Payment link not found',
        body: html`<h1>Payment link not found</h1><p>There is no payment link at this address. Check the link you were given.</p>`,
      });
    case 'paid':
      return htmlPage({
        ...page,
        status: 200,
        title: 'Already paid',
        body: html`<h1>This link has already been paid</h1>${summary(view.link, context)}<p>Nothing more to do: the payment was received.</p>`,
      });
    case 'gone':
      return htmlPage({
        ...page,
        status: 410,
        title: view.status === 'expired' ? 'Payment link expired' : 'Payment link canceled',
        body:
          view.status === 'expired'
            ? html`<h1>This payment link has expired</h1>${summary(view.link, context)}<p>It can no longer be paid. Ask the merchant for a new link.</p>`
            : html`<h1>This payment link was canceled</h1>${summary(view.link, context)}<p>The merchant canceled it, so it can no longer be paid.</p>`,
      });
    case 'preview':
      return htmlPage({
        ...page,
        status: 200,
        title: 'Payment request',
        body: html`<h1>Payment request</h1>${summary(view.link, context)}
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">Continue to payment</a>`,
      });
    case 'forward':
      return htmlPage({
        ...page,
        status: 200,
        title: 'Continue to payment',
        formAction: [view.pspOrigin],
        ...(context.canceled ? {} : { refreshTo: view.session.url }),
        body: html`<h1>${context.canceled ? 'Payment not completed' : 'Continue to payment'}</h1>${summary(view.link, context)}
${context.canceled ? html`<p>Your payment did not go through. You can try again.</p>` : undefined}
<a class="button" href="${view.session.url}">${context.canceled ? 'Try again' : 'Continue to payment'}</a>
<p class="muted">You pay on the secure page of our payment provider.</p>`,
      });
    case 'choose':
      // No session is opened until the buyer chooses; the other provider is asked for without naming it.
      return htmlPage({
        ...page,
        status: 200,
        title: 'Payment not completed',
        body: html`<h1>Payment not completed</h1>${summary(view.link, context)}
<p>Your payment did not go through. You can try again.</p>
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">Try again</a>
${
  view.another
    ? html`<p><a href="${`${context.checkoutBase}/${view.link.id}?via=${VIA_ANOTHER_PROVIDER}`}">Pay with another payment provider</a></p>`
    : undefined
}`,
      });
    case 'unavailable':
      return withRetryAfter(
        htmlPage({
          ...page,
          status: 503,
          title: 'Payment providers unavailable',
          body: html`<h1>Payment is not available right now</h1>${summary(view.link, context)}
<p>Our payment providers did not answer. Nothing was charged, and this link can still be paid.</p>
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">Try again</a>`,
        }),
        // A GET page is always safe to retry: without a known time, the buyer's browser is told a short wait.
        view.retryAt ?? new Date(context.now.getTime() + UNAVAILABLE_RETRY_AFTER_MS),
        context.now,
      );
    case 'throttled':
      return withRetryAfter(
        htmlPage({
          ...page,
          status: 429,
          title: 'Too many payment attempts',
          body: html`<h1>Too many payment attempts</h1>${summary(view.link, context)}
<p>This link was opened for payment too many times in a short while. Nothing was charged; please try again later.</p>`,
        }),
        view.retryAt,
        context.now,
      );
  }
}

/** What a 503 page asks the buyer to wait when no connection says when it will be back. */
const UNAVAILABLE_RETRY_AFTER_MS = 5_000;

/** `Retry-After` in seconds when the page knows when trying again makes sense. */
function withRetryAfter(result: HtmlResult, at: Date | undefined, now: Date): HtmlResult {
  if (!at) return result;
  const seconds = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
  return { ...result, headers: { ...result.headers, 'Retry-After': String(seconds) } };
}

/** Where the PSP returns the buyer when the link has no `redirect_url`. */
export function paymentReceivedPage(link: PaymentLink | undefined, context: ViewContext): HtmlResult {
  const page = { https: context.https, omitBody: context.omitBody };
  if (!link) return checkoutPage({ kind: 'not_found' }, context);
  return htmlPage({
    ...page,
    status: 200,
    title: 'Payment received',
    body:
      link.status === 'paid'
        ? html`<h1>Payment received</h1>${summary(link, context)}<p>Thank you. You can close this page.</p>`
        : html`<h1>Thank you</h1>${summary(link, context)}<p>Your payment is being confirmed. You can close this page.</p>`,
  });
}
