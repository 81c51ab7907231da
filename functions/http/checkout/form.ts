import { sentFromAnotherSite } from '../cross-site.ts';
import { securityHeaders } from '../html.ts';
import type { HtmlEvent, HtmlResult } from '../html-handler.ts';

/**
 * The form a buyer sends is a few fields (the amount; at most the "before you pay" answers: three custom fields,
 * two addresses, each percent-encoded); anything longer is not ours and is read as no answer.
 */
const MAX_FORM_BYTES = 16_384;

/** The hidden field of our "before you pay" form: its answers were posted (docs/checkout.md#buyer-details). */
export const ANSWERS_FIELD = 'answers';

/**
 * What the buyer sent with the amount form or the "before you pay" form (its `answers`) (`POST {checkout_base}/{id}`, `application/x-www-form-urlencoded`):
 * the amount as typed, and `via` when they asked for another payment provider. A form sent from another site
 * (`Sec-Fetch-Site` other than `same-origin`, or an `Origin` that names another origin) is read as a visit
 * (undefined): the page shows what a GET shows, so no other site can choose an amount for a buyer
 * (docs/security.md#checkout-sessions). A body that is not such a form is an empty answer, asked for again.
 */
export function chosenAmount(
  event: HtmlEvent,
  checkoutBase: string,
): { amount: string; via?: string | undefined; answers?: ReadonlyMap<string, string> } | undefined {
  if (sentFromAnotherSite(event.headers, new URL(checkoutBase).origin)) return undefined;
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const type = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || Buffer.byteLength(body) > MAX_FORM_BYTES) {
    return { amount: '' };
  }
  const form = new URLSearchParams(body);
  const amount = form.get('amount') ?? '';
  const via = form.get('via') ?? undefined;
  if (!form.has(ANSWERS_FIELD)) return { amount, via };
  // A field sent twice counts once, as first sent (what `URLSearchParams.get` reads).
  const answers = new Map<string, string>();
  for (const [name, value] of form) if (!answers.has(name)) answers.set(name, value);
  return { amount, via, answers };
}

/** 303 See Other to `location` (a GET), with the pages' security headers. */
export function seeOther(location: string, https: boolean): HtmlResult {
  return {
    statusCode: 303,
    headers: {
      ...securityHeaders({ https }),
      Location: location,
      'Content-Type': 'text/html; charset=utf-8',
    },
    body: '',
  };
}

/** `Retry-After` in seconds when the page knows when trying again makes sense. */
export function withRetryAfter(result: HtmlResult, at: Date | undefined, now: Date): HtmlResult {
  if (!at) return result;
  const seconds = Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
  return { ...result, headers: { ...result.headers, 'Retry-After': String(seconds) } };
}
