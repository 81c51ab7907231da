import type { SandboxSession } from '../../ports/sandbox-sessions.ts';
import { formatAmount, html, htmlPage } from '../html.ts';
import type { HtmlResult } from '../html-handler.ts';
import { messagesFor } from './messages.ts';

/**
 * The sandbox PSP's hosted page: plain forms, no script. Clearly marked as a simulation. It speaks the buyer's
 * language (the locale its session was opened with, else the browser's), as our own pages do
 * (docs/checkout.md#languages); its buttons keep the names **Pay** and **Decline** in every language.
 */
export async function sandboxPage(
  session: SandboxSession,
  options: { https: boolean; locale: string; declined?: boolean },
): Promise<HtmlResult> {
  const locale = session.locale ?? options.locale;
  const t = await messagesFor(locale);
  const amount = formatAmount(session.amount, locale);
  const action = `/sandbox/checkout/${session.id}`;
  const notice = options.declined ? html`<p><strong>${t.sandboxDeclinedNotice}</strong></p>` : undefined;
  const body =
    session.status === 'open'
      ? html`<p class="muted">${t.sandboxNote}</p>
<h1>${t.sandboxPay(amount)}</h1>
${session.description ? html`<p>${session.description}</p>` : undefined}
${notice}
<form method="post" action="${`${action}/pay`}"><button type="submit">Pay</button></form>
<form method="post" action="${`${action}/decline`}"><button type="submit" class="secondary">Decline</button></form>
<p><a href="${session.cancel_url}">${t.sandboxBack}</a></p>`
      : session.status === 'complete'
        ? html`<h1>${t.sandboxComplete}</h1><p>${t.sandboxPaid(amount)}</p><p><a class="button" href="${session.success_url}">${t.sandboxContinue}</a></p>`
        : session.status === 'processing'
          ? html`<p class="muted">${t.sandboxNote}</p>
<h1>${t.sandboxProcessing}</h1><p>${t.sandboxProcessingText(amount)}</p>
<p><a href="${session.success_url}">${t.sandboxContinue}</a></p>`
          : session.status === 'failed'
            ? html`<p class="muted">${t.sandboxNote}</p>
<h1>${t.sandboxDeclined}</h1>${notice}
<p><a class="button" href="${session.cancel_url}">${t.sandboxBackToMerchant}</a></p>`
            : html`<h1>${t.sandboxExpired}</h1><p><a class="button" href="${session.cancel_url}">${t.sandboxStartAgain}</a></p>`;
  return htmlPage({
    status: 200,
    lang: locale,
    title: t.sandboxTitle,
    body,
    https: options.https,
    // Pay answers with a redirect to the merchant's redirect_url, which form-action also governs.
    formAction: ["'self'", originOf(session.success_url)].filter((value): value is string => !!value),
  });
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
