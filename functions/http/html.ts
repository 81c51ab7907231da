import { createHash } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logoImageSource } from '../domain/checkout-settings.ts';
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
background:var(--accent,#1f5fd6);color:#fff}
button.secondary{background:#6b7280}
form{margin:0}
label{display:block;font-weight:600;margin:.5rem 0 .25rem}
input,select{box-sizing:border-box;width:100%;padding:.75rem;border:1px solid #6b7280;border-radius:.5rem;font:inherit;
font-size:1.25rem}
input[aria-invalid=true],select[aria-invalid=true]{border:2px solid #b3261e}
fieldset{border:0;padding:0;margin:1rem 0}
legend{font-weight:700;font-size:1.1rem;padding:0}
.hint{margin:.25rem 0 0;font-size:.9rem}
.error{font-weight:600;border-left:.25rem solid #b3261e;padding-left:.5rem}
header{display:flex;align-items:center;gap:.75rem;margin:0 0 1.25rem}
header img{max-height:3rem;max-width:10rem}
.brand{font-weight:600;margin:0}
footer{margin-top:1.5rem}
table{width:100%;border-collapse:collapse;margin:0 0 1rem}
th,td{padding:.35rem .25rem;border-bottom:1px solid #8884;text-align:right;vertical-align:top}
th[scope=row],thead th:first-child{text-align:left;font-weight:normal}
tfoot th,tfoot td{font-weight:600}
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

/** A date and time in the buyer's locale (`25 nov 2026, 17:00` in `nl`), in UTC since we do not know their zone. */
export function formatDate(iso: string, locale = 'en'): string {
  return new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

export interface PageOptions {
  status: number;
  /** The page's language (`<html lang>`), a BCP 47 tag; English by default. */
  lang?: string;
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
  /** The merchant's branding (docs/checkout.md#branding): the accent colour, and the logo the CSP lets load. */
  brand?: { accentColor?: string | null | undefined; logoUrl?: string | null | undefined };
  /** A passing failure: the same request may succeed after this many seconds (`Retry-After`). */
  retryAfterSeconds?: number;
}

/** The stylesheet that sets a merchant's accent colour (a validated `#rrggbb`), allowed by its own hash. */
const accentStyle = (color: string) => `:root{--accent:${color}}`;
const styleHash = (style: string) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`;

export function securityHeaders(options: {
  formAction?: readonly string[];
  https: boolean;
  brand?: PageOptions['brand'];
}) {
  const formAction = options.formAction?.length ? options.formAction.join(' ') : "'none'";
  const accent = options.brand?.accentColor ? ` ${styleHash(accentStyle(options.brand.accentColor))}` : '';
  // The logo alone is allowed, by its origin and path: the page can load no other image, and the stored URL is
  // never written into the header as it is (a `;` in it would start a directive of its own).
  const logo = options.brand?.logoUrl ? logoImageSource(options.brand.logoUrl) : undefined;
  const images = logo ? `; img-src ${logo}` : '';
  return {
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}${accent}${images}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
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
<html lang="${options.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
${refresh}
<title>${options.title}</title>
<style>${new Html(STYLE)}</style>
${options.brand?.accentColor ? html`<style>${new Html(accentStyle(options.brand.accentColor))}</style>` : undefined}
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
      ...securityHeaders({ formAction: options.formAction, https: options.https, brand: options.brand }),
      ...(options.retryAfterSeconds !== undefined && { 'Retry-After': String(options.retryAfterSeconds) }),
    },
    body: options.omitBody ? '' : document.value,
  };
}
