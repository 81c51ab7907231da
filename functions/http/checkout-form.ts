import { securityHeaders } from './html.ts';
import type { HtmlEvent, HtmlResult } from './html-handler.ts';

/** The form a buyer sends is a few fields; anything longer is not ours and is read as no answer. */
const MAX_FORM_BYTES = 1024;

/**
 * What the buyer sent with the amount form (`POST {checkout_base}/{id}`, `application/x-www-form-urlencoded`):
 * the amount as typed, and `via` when they asked for another payment provider. A form sent from another site
 * (`Sec-Fetch-Site` other than `same-origin`, or an `Origin` that names another origin) is read as a visit
 * (undefined): the page shows what a GET shows, so no other site can choose an amount for a buyer
 * (docs/security.md#checkout-sessions). A body that is not such a form is an empty answer, asked for again.
 */
export function chosenAmount(
  event: HtmlEvent,
  checkoutBase: string,
): { amount: string; via?: string | undefined } | undefined {
  const site = event.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return undefined;
  // Our pages send no referrer, so browsers send `Origin: null` with the form: only a named other origin tells.
  const origin = event.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== new URL(checkoutBase).origin) return undefined;
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const type = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || Buffer.byteLength(body) > MAX_FORM_BYTES) {
    return { amount: '' };
  }
  const form = new URLSearchParams(body);
  return { amount: form.get('amount') ?? '', via: form.get('via') ?? undefined };
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
