import { type AmountRange, hasAdjustableLines, lineTotalMinor } from '../../domain/amount.ts';
import { mayAskFirst } from '../../domain/checkout/answers.ts';
import type { FormTables } from '../../domain/checkout/form-tables.ts';
import type { AskedForm } from '../../domain/checkout/questions.ts';
import { type CheckoutView, VIA_ANOTHER_PROVIDER } from '../../domain/checkout/views.ts';
import type { CheckoutSettings } from '../../domain/checkout-settings.ts';
import { type Amount, fromMinorUnits } from '../../domain/money.ts';
import type { PaymentLink } from '../../domain/payment-link.ts';
import { formatAmount, formatDate, type Html, html, htmlPage, type PageOptions } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { amountField, amountForm, problemText, rangeBounds, typedAmount } from './amount-form.ts';
import { withRetryAfter } from './form.ts';
import { questionsForm } from './form-view.ts';
import type { Messages } from './messages.ts';

export interface ViewContext {
  https: boolean;
  /** The buyer's locale tag (functions/domain/locale.ts): the language of the texts and of Intl formatting. */
  locale: string;
  omitBody: boolean;
  checkoutBase: string;
  /** The buyer came back from the PSP without paying: show the link, do not forward again at once. */
  canceled: boolean;
  /** The merchant's branding for the link's (account, mode), when set (docs/checkout.md#branding). */
  settings?: CheckoutSettings | undefined;
  now: Date;
  /** The texts of `locale` (`messagesFor`), loaded before the page is drawn. */
  t: Messages;
  /** The form tables, loaded before drawing a form that asks an address (`drawingNeedsTables`). */
  tables?: FormTables | undefined;
}

/** The order's lines: what each is, how many, at what price, and the total (the link's amount). */
function lineItems(link: PaymentLink, context: ViewContext, t: Messages): Html | undefined {
  if (!link.line_items?.length) return undefined;
  const money = (amount: Amount) => formatAmount(amount, context.locale);
  const percent = (rate: string) =>
    new Intl.NumberFormat(context.locale, { style: 'percent', maximumFractionDigits: 2 }).format(
      Number(rate) / 100,
    );
  const rows = link.line_items.map((item) => {
    const total = {
      value: fromMinorUnits(lineTotalMinor(item), item.unit_amount.currency),
      currency: item.unit_amount.currency,
    };
    return html`<tr><th scope="row">${item.name}${item.tax_rate ? html`<br><span class="muted">${t.includesTax(percent(item.tax_rate))}</span>` : undefined}</th><td>${item.quantity}</td><td>${money(item.unit_amount)}</td><td>${money(total)}</td></tr>`;
  });
  return html`<table>
<thead><tr><th scope="col">${t.item}</th><th scope="col">${t.quantity}</th><th scope="col">${t.unitPrice}</th><th scope="col">${t.total}</th></tr></thead>
<tbody>${rows}</tbody>
${link.amount ? html`<tfoot><tr><th scope="row" colspan="3">${t.total}</th><td>${money(link.amount)}</td></tr></tfoot>` : undefined}
</table>`;
}

/**
 * What the link asks for: `amount` when the page knows it (a session's, a paid one's), else the link's fixed
 * amount, else the bounds of a buyer-chosen one. A single-use link's payment is its one buyer's; a reusable
 * link's `payment` is whichever buyer paid last, so its amount is never shown to anyone else. `payable` pages
 * (the link can still be paid) also say until when.
 */
function summary(
  link: PaymentLink,
  context: ViewContext,
  t: Messages,
  payable = false,
  amount: Amount | undefined = undefined,
): Html {
  const paid = link.payment && !link.reusable ? link.payment.amount : undefined;
  const shown = amount ?? link.amount ?? paid;
  const range = link.amount_range;
  return html`${
    shown
      ? html`<p class="amount">${formatAmount(shown, context.locale)}</p>`
      : range
        ? html`<p>${t.amountHint(...rangeBounds(range, context.locale))}</p>`
        : undefined
  }
${link.description ? html`<p>${link.description}</p>` : undefined}
${lineItems(link, context, t)}
${payable && link.expires_at ? html`<p class="muted">${t.expiresOn(formatDate(link.expires_at, context.locale))}</p>` : undefined}`;
}

/** Every page of ours: the merchant's name and logo on top, their support address below, their accent. */
function page(
  context: ViewContext,
  options: Omit<PageOptions, 'https' | 'omitBody' | 'lang' | 'brand'>,
): HtmlResult {
  const { settings, t } = context;
  const name = settings?.display_name;
  const logo = settings?.logo_url;
  const header =
    name || logo
      ? html`<header>${logo ? html`<img src="${logo}" alt="${name ? '' : t.logoAlt}">` : undefined}${name ? html`<p class="brand">${name}</p>` : undefined}</header>`
      : undefined;
  const footer = settings?.support_email
    ? html`<footer><p class="muted">${t.contact} <a href="${`mailto:${settings.support_email}`}">${settings.support_email}</a></p></footer>`
    : undefined;
  return htmlPage({
    ...options,
    body: html`${header}${options.body}${footer}`,
    https: context.https,
    omitBody: context.omitBody,
    lang: context.locale,
    brand: { accentColor: settings?.accent_color, logoUrl: logo },
  });
}

/** The page of each kind of checkout view (`CheckoutView`), one function each. */
type Renderers = {
  [Kind in CheckoutView['kind']]: (
    view: Extract<CheckoutView, { kind: Kind }>,
    context: ViewContext,
    t: Messages,
  ) => HtmlResult;
};

export function checkoutPage(view: CheckoutView, context: ViewContext): HtmlResult {
  const render = RENDERERS[view.kind] as (
    view: CheckoutView,
    context: ViewContext,
    t: Messages,
  ) => HtmlResult;
  return render(view, context, context.t);
}

const RENDERERS: Renderers = {
  not_found: (_view, context, t) =>
    page(context, {
      status: 404,
      title: t.notFoundTitle,
      body: html`<h1>${t.notFoundTitle}</h1><p>${t.notFoundText}</p>`,
    }),
  paid: (view, context, t) =>
    page(context, {
      status: 200,
      title: t.paidTitle,
      body: html`<h1>${t.paidHeading}</h1>${summary(view.link, context, t)}<p>${t.paidText}</p>`,
    }),
  gone: (view, context, t) => {
    const texts: Record<typeof view.status, [string, string, string]> = {
      expired: [t.expiredTitle, t.expiredHeading, t.expiredText],
      canceled: [t.canceledTitle, t.canceledHeading, t.canceledText],
      completed: [t.completedTitle, t.completedHeading, t.completedText],
    };
    const [title, heading, text] = texts[view.status];
    return page(context, {
      status: 410,
      title,
      body: html`<h1>${heading}</h1>${summary(view.link, context, t)}<p>${text}</p>`,
    });
  },
  preview: (view, context, t) =>
    page(context, {
      status: 200,
      title: t.requestTitle,
      body: html`<h1>${t.requestTitle}</h1>${summary(view.link, context, t, true)}
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">${t.continueToPayment}</a>`,
    }),
  forward: forwardPage,
  choose: choosePage,
  ask: askPage,
  unavailable: (view, context, t) =>
    withRetryAfter(
      page(context, {
        status: 503,
        title: t.unavailableTitle,
        body: html`<h1>${t.unavailableHeading}</h1>${summary(view.link, context, t, true)}
<p>${t.unavailableText}</p>
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">${t.tryAgain}</a>`,
      }),
      // A GET page is always safe to retry: without a known time, the buyer's browser is told a short wait.
      view.retryAt ?? new Date(context.now.getTime() + UNAVAILABLE_RETRY_AFTER_MS),
      context.now,
    ),
  // Nothing the buyer did: a place may free up when another buyer's session ends unpaid.
  full: (view, context, t) =>
    withRetryAfter(
      page(context, {
        status: 409,
        title: t.fullTitle,
        body: html`<h1>${t.fullTitle}</h1>${summary(view.link, context, t)}
<p>${t.fullText}</p>
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">${t.tryAgain}</a>`,
      }),
      view.retryAt,
      context.now,
    ),
  throttled: (view, context, t) =>
    withRetryAfter(
      page(context, {
        status: 429,
        title: t.throttledTitle,
        body: html`<h1>${t.throttledTitle}</h1>${summary(view.link, context, t)}
<p>${t.throttledText}</p>`,
      }),
      view.retryAt,
      context.now,
    ),
};

/** Forwards the buyer to their open session; back from the PSP (`canceled`), offers it again instead. */
function forwardPage(
  view: Extract<CheckoutView, { kind: 'forward' }>,
  context: ViewContext,
  t: Messages,
): HtmlResult {
  // A link that asks first offers its open session again: its answers go with it until it ends.
  const range = mayAskFirst(view.link) ? null : view.link.amount_range;
  const amount = view.session.amount;
  // Back from the PSP on a buyer-chosen amount: the same form, at the session's amount; sending it unchanged
  // shows the same session again, another amount replaces it (docs/checkout.md#buyer-chosen-amounts).
  const again =
    context.canceled && range
      ? amountForm(view.link, range, context, t, {
          value: amount && typedAmount(amount, context.locale),
          submit: t.tryAgain,
        })
      : html`<a class="button" href="${view.session.url}">${context.canceled ? t.tryAgain : t.continueToPayment}</a>`;
  return page(context, {
    status: 200,
    title: t.continueToPayment,
    formAction: context.canceled && range ? ["'self'"] : [view.pspOrigin],
    ...(context.canceled ? {} : { refreshTo: view.session.url }),
    body: html`<h1>${context.canceled ? t.notCompletedHeading : t.continueToPayment}</h1>${summary(view.link, context, t, true, amount)}
${context.canceled ? html`<p>${t.notCompletedText}</p>` : undefined}
${again}
<p class="muted">${t.securePage}</p>`,
  });
}

/** After an attempt that ended unpaid: try again, or another provider; no session is opened until they choose. */
function choosePage(
  view: Extract<CheckoutView, { kind: 'choose' }>,
  context: ViewContext,
  t: Messages,
): HtmlResult {
  // The other provider is asked for without naming it.
  const range = view.link.amount_range;
  if (range) {
    return page(context, {
      status: 200,
      title: t.notCompletedHeading,
      formAction: ["'self'"],
      body: html`<h1>${t.notCompletedHeading}</h1>${summary(view.link, context, t, true)}
<p>${t.notCompletedText}</p>
${amountForm(view.link, range, context, t, {
  value: typedAmount(view.amount, context.locale),
  submit: t.tryAgain,
  another: view.another,
})}`,
    });
  }
  return page(context, {
    status: 200,
    title: t.notCompletedHeading,
    body: html`<h1>${t.notCompletedHeading}</h1>${summary(view.link, context, t, true)}
<p>${t.notCompletedText}</p>
<a class="button" href="${`${context.checkoutBase}/${view.link.id}`}">${t.tryAgain}</a>
${
  view.another
    ? html`<p><a href="${`${context.checkoutBase}/${view.link.id}?via=${VIA_ANOTHER_PROVIDER}`}">${t.otherProvider}</a></p>`
    : undefined
}`,
  });
}

/** The amount form of a buyer-chosen amount, again with why the last answer was refused. */
function askPage(
  view: Extract<CheckoutView, { kind: 'ask' }>,
  context: ViewContext,
  t: Messages,
): HtmlResult {
  const range = view.link.amount_range;
  if (view.form) return questionsPage(view, view.form, context, t);
  // Only a link with a range or questions is asked; any other reaching here is shown as it is.
  if (!range) return checkoutPage({ kind: 'preview', link: view.link }, context);
  const problem = problemText(view, range, context, t);
  const suggested = range.suggested
    ? typedAmount({ value: range.suggested, currency: range.currency }, context.locale)
    : undefined;
  return page(context, {
    // A refused answer is the buyer's to correct: the same form again, saying why.
    status: problem ? 422 : 200,
    title: problem ? `${t.errorPrefix} ${t.requestTitle}` : t.requestTitle,
    formAction: ["'self'"],
    body: html`<h1>${t.requestTitle}</h1>
${view.link.description ? html`<p>${view.link.description}</p>` : undefined}
${amountForm(view.link, range, context, t, {
  value: view.entered ?? suggested,
  problem,
  submit: t.continueToPayment,
})}
${view.link.expires_at ? html`<p class="muted">${t.expiresOn(formatDate(view.link.expires_at, context.locale))}</p>` : undefined}`,
  });
}

/**
 * The "before you pay" form (docs/checkout.md#buyer-details): the amount of a range link, the quantities, the
 * link's own questions and the buyer details our page asks, in one form; again, with what was refused.
 */
function questionsPage(
  view: Extract<CheckoutView, { kind: 'ask' }>,
  form: AskedForm,
  context: ViewContext,
  t: Messages,
): HtmlResult {
  const { link } = view;
  const range = link.amount_range;
  const amount = range ? questionsAmountField(view, range, context, t) : undefined;
  const refused = view.problem !== undefined || form.problems.length > 0;
  // The lines' table shows the link's quantities: with quantities to pick, the form shows each line instead.
  const description = link.description ? html`<p>${link.description}</p>` : undefined;
  const shown = hasAdjustableLines(link) || range ? description : summary(link, context, t);
  const action = `${context.checkoutBase}/${link.id}`;
  return page(context, {
    status: refused ? 422 : 200,
    title: refused ? `${t.errorPrefix} ${t.form.title}` : t.form.title,
    formAction: ["'self'"],
    body: html`<h1>${t.form.title}</h1>
${shown}
${questionsForm(link, form, { action, locale: context.locale, t, tables: context.tables, amount, notPayable: view.problem === 'not_payable' })}
${link.expires_at ? html`<p class="muted">${t.expiresOn(formatDate(link.expires_at, context.locale))}</p>` : undefined}`,
  });
}

/** A range link's amount field on the "before you pay" form (a total no PSP takes is said above the form). */
function questionsAmountField(
  view: Extract<CheckoutView, { kind: 'ask' }>,
  range: AmountRange,
  context: ViewContext,
  t: Messages,
): Html {
  const problem = view.problem === 'not_payable' ? undefined : problemText(view, range, context, t);
  const suggested = range.suggested
    ? typedAmount({ value: range.suggested, currency: range.currency }, context.locale)
    : undefined;
  return amountField(range, context, t, { value: view.entered ?? suggested, problem });
}

/** What a 503 page asks the buyer to wait when no connection says when it will be back. */
const UNAVAILABLE_RETRY_AFTER_MS = 5_000;

/**
 * Where the PSP returns the buyer when the link has no `redirect_url`; `paid`: the buyer's payment is recorded
 * (a single-use link is paid; on a reusable link, the payment their cookie names succeeded).
 */
export function paymentReceivedPage(
  link: PaymentLink | undefined,
  context: ViewContext,
  outcome: { paid: boolean; amount: Amount | undefined } | undefined,
): HtmlResult {
  if (!link || !outcome) return checkoutPage({ kind: 'not_found' }, context);
  const { t } = context;
  const shown = summary(link, context, t, false, outcome.amount);
  return page(context, {
    status: 200,
    title: t.receivedTitle,
    body: outcome.paid
      ? html`<h1>${t.receivedTitle}</h1>${shown}<p>${t.receivedText}</p>`
      : html`<h1>${t.thankYou}</h1>${shown}<p>${t.confirmingText}</p>`,
  });
}
