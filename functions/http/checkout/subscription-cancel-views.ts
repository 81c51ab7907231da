import { nextChargeAt } from '../../domain/subscription.ts';
import type { CancelLinkView } from '../../use-cases/subscriptions.ts';
import { formatAmount, formatDate, type Html, html, htmlPage } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { type Messages, messagesFor } from './messages.ts';
import { termsText } from './subscription-views.ts';

/**
 * The buyer's cancel page (docs/subscriptions.md#cancel-links): what the subscription charges and when next, one
 * button; after it, what the cancel means. Plain forms, no script, no sign-in: the token in the path is the key.
 */

export async function cancelLinkPage(
  view: CancelLinkView,
  options: { https: boolean; locale: string; token: string },
): Promise<HtmlResult> {
  const messages = await messagesFor(options.locale);
  const t = messages.subscription;
  const page = (status: number, title: string, body: Html) =>
    htmlPage({ status, lang: options.locale, title, body, https: options.https, formAction: ["'self'"] });
  if (!('subscription' in view)) {
    return view.state === 'not_found'
      ? page(404, t.notFoundTitle, html`<h1>${t.notFoundTitle}</h1><p>${t.notFoundText}</p>`)
      : page(410, t.cancelTitle, html`<h1>${t.cancelTitle}</h1><p>${t.expiredText}</p>`);
  }
  const { subscription } = view;
  const summary = html`<p class="amount">${formatAmount(subscription.amount, options.locale)}</p>
${subscription.description ? html`<p>${subscription.description}</p>` : undefined}`;
  if (view.state !== 'usable') {
    return page(
      200,
      t.cancelTitle,
      html`<h1>${t.cancelTitle}</h1>${summary}<p>${outcome(view, options.locale, t)}</p>
${view.state === 'used' ? html`<p class="muted">${t.usedText}</p>` : undefined}`,
    );
  }
  const next = nextChargeAt(subscription);
  const [terms] = termsText(messages, subscription.recurring, subscription.amount, options.locale, undefined);
  return page(
    200,
    t.cancelTitle,
    html`<h1>${t.cancelTitle}</h1>${summary}<p>${terms}</p>
${next ? html`<p>${t.nextCharge(formatDate(next, options.locale))}</p>` : undefined}
<form method="post" action="${`/subscriptions/cancel/${options.token}`}"><button type="submit">${t.cancelButton}</button></form>`,
  );
}

/** What the buyer's cancel did: canceled now, at the end of the period they paid, or it was over already. */
function outcome(
  view: Extract<CancelLinkView, { subscription: unknown }>,
  locale: string,
  t: Messages['subscription'],
): string {
  const { subscription } = view;
  if (subscription.status === 'ended') return t.alreadyOver;
  if (subscription.cancel_at_period_end && subscription.status !== 'canceled') {
    return t.canceledAtEnd(formatDate(subscription.current_period_end, locale));
  }
  return t.canceledNow;
}
