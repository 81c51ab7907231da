import type { SandboxSession } from '../ports/sandbox-sessions.ts';
import { formatAmount, html, htmlPage } from './html.ts';
import type { HtmlResult } from './html-handler.ts';

/** The sandbox PSP's hosted page: plain forms, no script. Clearly marked as a simulation. */
export function sandboxPage(
  session: SandboxSession,
  options: { https: boolean; locale: string; notice?: string },
): HtmlResult {
  const amount = formatAmount(session.amount, session.locale ?? options.locale);
  const action = `/sandbox/checkout/${session.id}`;
  const body =
    session.status === 'open'
      ? html`<p class="muted">Sandbox PSP: test mode, no real money moves.</p>
<h1>Pay ${amount}</h1>
${session.description ? html`<p>${session.description}</p>` : undefined}
${options.notice ? html`<p><strong>${options.notice}</strong></p>` : undefined}
<form method="post" action="${`${action}/pay`}"><button type="submit">Pay</button></form>
<form method="post" action="${`${action}/decline`}"><button type="submit" class="secondary">Decline</button></form>
<p><a href="${session.cancel_url}">Back</a></p>`
      : session.status === 'complete'
        ? html`<h1>Payment complete</h1><p>${amount} was paid.</p><p><a class="button" href="${session.success_url}">Continue</a></p>`
        : session.status === 'failed'
          ? html`<p class="muted">Sandbox PSP: test mode, no real money moves.</p>
<h1>Payment declined</h1>${options.notice ? html`<p><strong>${options.notice}</strong></p>` : undefined}
<p><a class="button" href="${session.cancel_url}">Back to the merchant</a></p>`
          : html`<h1>This checkout session has expired</h1><p><a class="button" href="${session.cancel_url}">Start again</a></p>`;
  return htmlPage({
    status: 200,
    title: 'Sandbox checkout',
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
