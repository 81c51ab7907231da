import type { Amount } from '../../domain/money.ts';
import type { Recurring } from '../../domain/subscription-schedule.ts';
import type { SandboxSession } from '../../ports/sandbox-sessions.ts';
import { formatAmount, type Html, html } from '../html.ts';
import type { Messages } from './messages.ts';

/**
 * What our checkout pages tell a buyer of a subscription link (docs/subscriptions.md#what-the-buyer-is-told): before
 * paying, what they agree to (the amount, how often, the trial, how to cancel); after, that it is set up and how to
 * cancel. The PSP's page shows the same terms (`OpensMandate.recurring`). The texts are the checkout's, in the
 * buyer's language (`Messages.subscription`).
 */
export function termsText(
  t: Messages,
  recurring: Recurring,
  amount: Amount,
  locale: string,
  merchant: string | undefined,
): string[] {
  const texts = t.subscription;
  const every = texts.every(recurring.interval, recurring.interval_count);
  return [
    ...(recurring.trial_days ? [texts.trial(recurring.trial_days)] : []),
    texts.terms(formatAmount(amount, locale), every, recurring.cycles),
    texts.howToCancel(merchant),
  ];
}

/** Where our page is shown: the buyer's locale and its texts, and the merchant's name from their branding. */
interface PageContext {
  locale: string;
  t: Messages;
  settings?: { display_name: string | null } | null | undefined;
}

/** The terms as our page shows them, beside the link's summary; nothing for a link without `recurring`. */
export function recurringTerms(
  link: { recurring: Recurring | null; amount: Amount | null },
  { locale, t, settings }: PageContext,
): Html | undefined {
  if (!link.recurring || !link.amount) return undefined;
  const merchant = settings?.display_name ?? undefined;
  return termsHtml(termsText(t, link.recurring, link.amount, locale, merchant));
}

/** After paying a subscription link: it is set up, and how to cancel it. */
export function subscribedNotice(
  link: { recurring: Recurring | null },
  { t, settings }: PageContext,
): Html | undefined {
  if (!link.recurring) return undefined;
  const merchant = settings?.display_name ?? undefined;
  return html`<p><strong>${t.subscription.subscribedText}</strong></p><p>${t.subscription.howToCancel(merchant)}</p>`;
}

/**
 * What the sandbox's page (a PSP's page) tells the buyer of a session that opens a mandate: the subscription's
 * terms, or for an update link that the method is charged for the subscription's later periods.
 */
export function mandateTerms(
  session: Pick<SandboxSession, 'opens_mandate'>,
  locale: string,
  t: Messages,
): Html | undefined {
  const opens = session.opens_mandate;
  if (!opens) return undefined;
  if (!opens.recurring) return html`<p><strong>${t.subscription.laterPeriods}</strong></p>`;
  return termsHtml(termsText(t, opens.recurring, opens.period_amount, locale, undefined));
}

/** The first line of the terms stands out; the rest follow in small print. */
function termsHtml([first, ...rest]: string[]): Html {
  return html`<p><strong>${first}</strong></p>${rest.map((line) => html`<p class="muted">${line}</p>`)}`;
}
