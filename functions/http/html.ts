import { createHash } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type Amount, minorUnits } from '../domain/money.ts';

/**
 * Our HTML pages (checkout interstitial, sandbox PSP): no script at all, one inline stylesheet allowed by its
 * hash, and the security headers of docs/checkout.md#for-buyers on every response, errors included.
 */
const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5}
body{margin:0;padding:1.5rem 1rem;display:flex;justify-content:center}
main{width:100%;max-width:28rem}
h1{font-size:1.4rem;margin:0 0 .75rem}
.amount{font-size:2rem;font-weight:600;margin:.25rem 0 1rem}
.muted{opacity:.75}
.button,button{display:block;box-sizing:border-box;width:100%;margin:.75rem 0;padding:.9rem 1rem;border:0;
border-radius:.5rem;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer;
background:#1f5fd6;color:#fff}
button.secondary{background:#6b7280}
form{margin:0}
`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    const parts = Array.isArray(value) ? value : [value];
    for (const part of parts) {
      if (part === null || part === undefined || part === false) continue;
      out += part instanceof Html ? part.value : escapeHtml(String(part));
    }
    out += strings[index + 1] ?? '';
  });
  return new Html(out);
}

/** The first language of `Accept-Language` that Intl supports, else English. */
export function preferredLocale(acceptLanguage: string | undefined): string {
  for (const entry of (acceptLanguage ?? '').split(',')) {
    const tag = entry.split(';')[0]?.trim();
    if (!tag || tag === '*') continue;
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf([tag]);
      if (supported) return supported;
    } catch {
      // not a valid language tag
    }
  }
  return 'en';
}

/** "10.5" EUR → "€10.50" (en) or "10,50 €" (de): exact (the decimal string is formatted as is), all minor units. */
export function formatAmount(amount: Amount, locale = 'en'): string {
  const digits = minorUnits(amount.currency) ?? 2;
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: amount.currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(amount.value as Intl.StringNumericLiteral);
}

export interface PageOptions {
  status: number;
  title: string;
  body: Html;
  /** Forward the browser there at once (meta refresh; the page also shows a link). */
  refreshTo?: string;
  /** Origins forms may submit to (the CSP `form-action`); none by default. */
  formAction?: readonly string[];
  /** HSTS is sent on pages served over https. */
  https: boolean;
  /** HEAD: headers only. */
  omitBody?: boolean;
  /** A passing failure: the same request may succeed after this many seconds (`Retry-After`). */
  retryAfterSeconds?: number;
}

export function securityHeaders(options: { formAction?: readonly string[]; https: boolean }) {
  const formAction = options.formAction?.length ? options.formAction.join(' ') : "'none'";
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...(options.https ? { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

export function htmlPage(options: PageOptions): APIGatewayProxyStructuredResultV2 {
  const refresh = options.refreshTo
    ? html`<meta http-equiv="refresh" content="0;url=${options.refreshTo}">`
    : undefined;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
${refresh}
<title>${options.title}</title>
<style>${new Html(STYLE)}</style>
</head>
<body><main>
${options.body}
</main></body>
</html>
`;
  return {
    statusCode: options.status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      ...securityHeaders({ formAction: options.formAction, https: options.https }),
      ...(options.retryAfterSeconds !== undefined && { 'Retry-After': String(options.retryAfterSeconds) }),
    },
    body: options.omitBody ? '' : document.value,
  };
}
