import { createHash } from 'node:crypto';
import { type ConsoleAction, type ConsoleSession, mayPerform } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { Html, html } from '../html.ts';
import type { HtmlEvent, HtmlResult } from '../html-handler.ts';
import { type ConsoleMessages, consoleMessages } from './messages.ts';

/** Where the console is served, on the same API as everything else (docs/console.md). */
export const CONSOLE_BASE = '/console';

/**
 * The console's one stylesheet, allowed by its hash as the checkout's is: the same strict policy, no script at
 * all, images only inline (the QR code is drawn into the page).
 */
const STYLE = `
:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1b1b1f}
body{margin:0}
.mode{margin:0;padding:.5rem 1rem;font-weight:700;text-align:center;color:#fff}
.mode.test{background:#8a4b00}.mode.live{background:#a1001b}
.mode form{display:inline;margin-left:1rem}
.mode button{background:#fff;color:#1b1b1f;padding:.2rem .6rem;margin:0;width:auto;display:inline}
nav{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;padding:.75rem 1rem;border-bottom:1px solid #ccc}
nav a{color:#0b4fbf}nav a[aria-current=page]{font-weight:700;color:#1b1b1f}
nav .who{margin-left:auto}
nav .search label{display:inline;margin:0}nav .search input{padding:.25rem .5rem}nav .search button{padding:.25rem .75rem}
nav form{display:inline}
main{max-width:80rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem}
a{color:#0b4fbf}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #0b4fbf;outline-offset:2px}
table{width:100%;border-collapse:collapse;margin:0 0 1.5rem}
th,td{padding:.4rem .5rem;border-bottom:1px solid #ccc;text-align:left;vertical-align:top}
td a,td code{overflow-wrap:anywhere}td button{white-space:nowrap}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input,select,textarea{padding:.5rem;border:1px solid #6b7280;border-radius:.25rem;font:inherit}
button{padding:.5rem 1rem;border:0;border-radius:.25rem;font:inherit;font-weight:600;cursor:pointer;background:#0b4fbf;color:#fff}
button.danger{background:#a1001b}
.error{font-weight:600;border-left:.25rem solid #a1001b;padding-left:.5rem}
.notice{border-left:.25rem solid #1b7f3b;padding-left:.5rem}
.qr svg{width:12rem;height:12rem}
.preview{border:1px solid #ccc;border-radius:.5rem;padding:1rem;max-width:28rem}
.preview header{display:flex;align-items:center;gap:.75rem}.preview img{max-height:3rem;max-width:10rem}
.preview .pay{display:block;margin-top:1rem;padding:.75rem;border-radius:.5rem;text-align:center;font-weight:600;color:#fff;background:var(--accent,#1f5fd6)}
.inline{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}
.inline label{margin:0}
fieldset{border:1px solid #ccc;border-radius:.25rem;margin:1rem 0;padding:.5rem 1rem}
legend{font-weight:600}
label.choice{display:inline-block;font-weight:normal;margin:.25rem 1rem .25rem 0}
code{overflow-wrap:anywhere}
.nowrap{white-space:nowrap}
.presets{display:flex;flex-wrap:wrap;gap:1rem;list-style:none;padding:0}.presets a[aria-current]{font-weight:700;color:#1b1b1f}
.totals{width:auto}.totals caption{text-align:left;font-weight:600}
.chart{margin:1rem 0}.chart svg{max-width:100%;height:auto}figcaption{font-weight:600}
textarea{font-family:ui-monospace,monospace;width:100%;box-sizing:border-box}
`;
const styleHash = (style: string) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`;
const STYLE_HASH = styleHash(STYLE);

/** Whether the console is served over https: directly, or behind API Gateway (`X-Forwarded-Proto`). */
export const consoleHttps = (event: HtmlEvent): boolean =>
  (event.headers['x-forwarded-proto'] ?? '').split(',')[0]?.trim() === 'https';

/** The checkout's security headers, for the console: forms post to the console itself only. */
export function consoleHeaders(
  https: boolean,
  preview?: ConsolePageOptions['preview'],
): Record<string, string> {
  // A checkout preview adds its accent stylesheet by its own hash, and its logo by origin and path only.
  const accent = preview?.style ? ` ${styleHash(preview.style)}` : '';
  const images = preview?.imageSource ? `; img-src ${preview.imageSource}` : '';
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src ${STYLE_HASH}${accent}${images}; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...(https ? { 'Strict-Transport-Security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}

/** The session cookie: `__Host-` (Secure, whole host) over https; plain on the local stack's http. */
export const sessionCookieName = (https: boolean) => (https ? '__Host-console_session' : 'console_session');

export function sessionCookie(sessionId: string, https: boolean): string {
  const scope = https ? 'Path=/; Secure' : `Path=${CONSOLE_BASE}`;
  return `${sessionCookieName(https)}=${sessionId}; ${scope}; HttpOnly; SameSite=Strict`;
}

export function clearedSessionCookie(https: boolean): string {
  return `${sessionCookie('', https)}; Max-Age=0`;
}

/** The session id the browser sent, if any. */
export function sessionIdOf(event: HtmlEvent): string | undefined {
  const name = `${sessionCookieName(consoleHttps(event))}=`;
  return event.cookies?.find((cookie) => cookie.startsWith(name))?.slice(name.length) || undefined;
}

/** Console forms are small; a larger body is not one of ours and reads as empty. */
const MAX_FORM_BYTES = 16 * 1024;

/** The urlencoded form of a POST (empty when the body is anything else). */
export function formOf(event: HtmlEvent): URLSearchParams {
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const type = (event.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || Buffer.byteLength(body) > MAX_FORM_BYTES) {
    return new URLSearchParams();
  }
  return new URLSearchParams(body);
}

/** The hidden field every form of a session carries (the synchronizer token the handler checks). */
export const csrfField = (session: ConsoleSession) =>
  html`<input type="hidden" name="csrf_token" value="${session.csrf_token}">`;

/** The navigation: each page's words, its path, and what the role must be allowed to be shown it. */
const NAV: readonly [keyof ConsoleMessages['nav'], string, ConsoleAction?][] = [
  ['overview', `${CONSOLE_BASE}/overview`],
  ['links', `${CONSOLE_BASE}/links`],
  ['newLink', `${CONSOLE_BASE}/links/new`, 'link.create'],
  ['payments', `${CONSOLE_BASE}/payments`],
  ['refunds', `${CONSOLE_BASE}/refunds`],
  ['subscriptions', `${CONSOLE_BASE}/subscriptions`],
  ['settlements', `${CONSOLE_BASE}/settlements`],
  ['webhooks', `${CONSOLE_BASE}/webhooks`],
  ['psps', `${CONSOLE_BASE}/psps`],
  ['settings', `${CONSOLE_BASE}/settings`],
  ['keys', `${CONSOLE_BASE}/keys`, 'keys.manage'],
  ['exports', `${CONSOLE_BASE}/exports`, 'export.read'],
  ['audit', `${CONSOLE_BASE}/audit`, 'audit.read'],
];

/** The test/live banner: on every page, in colour and in words, with the switch to the other mode. */
function modeBanner(session: ConsoleSession, path: string, words: ConsoleMessages): Html {
  const other = session.mode === 'test' ? 'live' : 'test';
  return html`<div class="mode ${session.mode}" role="status">${words.banner[session.mode]}
<form method="post" action="${CONSOLE_BASE}/mode">${csrfField(session)}<input type="hidden" name="mode" value="${other}"><input type="hidden" name="back" value="${path}"><button type="submit">${words.switchTo(other)}</button></form></div>`;
}

export interface ConsolePageOptions {
  status?: number;
  title: string;
  body: Html;
  https: boolean;
  /** The signed-in user's session: the banner and navigation are shown with it. */
  session?: ConsoleSession;
  /** The page's path, to mark its navigation entry and come back to after a mode switch. */
  path?: string;
  cookies?: string[];
  /**
   * The language of the page (`lang`) and of its banner and navigation: the browser's, for the pages whose own
   * texts are translated (docs/console.md#languages); English otherwise.
   */
  language?: PageLanguage;
  /** A preview of the checkout's branding: its stylesheet and the one image source it may load. */
  preview?: { style?: string | undefined; imageSource?: string | undefined };
}

export function consolePage(options: ConsolePageOptions): HtmlResult {
  const { session, path = CONSOLE_BASE, language = 'en' } = options;
  const words = consoleMessages(language);
  const chrome = session
    ? html`${modeBanner(session, path, words)}
<header><nav aria-label="${words.navLabel}">
${NAV.filter(([, , needs]) => !needs || mayPerform(session.role, needs)).map(([page, href]) => html`<a href="${href}"${path === href ? new Html(' aria-current="page"') : ''}>${words.nav[page]}</a>`)}
<form method="get" action="${CONSOLE_BASE}/search" role="search" class="search" aria-label="${words.search.title}"><label for="console-search">${words.search.label}</label> <input id="console-search" name="q" type="search" size="18"> <button type="submit">${words.search.button}</button></form>
<span class="who">${session.user} (${words.status.roles[session.role]}, ${session.account})</span>
<form method="post" action="${CONSOLE_BASE}/sign-out">${csrfField(session)}<button type="submit">${words.signOut}</button></form>
</nav></header>`
    : undefined;
  const document = html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${options.title} · ${words.consoleName}</title>
<style>${new Html(STYLE)}</style>
${options.preview?.style ? html`<style>${new Html(options.preview.style)}</style>` : undefined}
</head>
<body>
${chrome}
<main>
${options.body}
</main>
</body>
</html>
`;
  return {
    statusCode: options.status ?? 200,
    headers: consoleHeaders(options.https, options.preview),
    body: document.value,
    ...(options.cookies && { cookies: options.cookies }),
  };
}

/** 303 See Other: after every change (Post/Redirect/Get), and to the sign-in page. */
export function consoleRedirect(location: string, https: boolean, cookies?: string[]): HtmlResult {
  return {
    statusCode: 303,
    headers: { ...consoleHeaders(https), Location: location },
    body: '',
    ...(cookies && { cookies }),
  };
}

/** A timestamp as people read it, in UTC. */
export const when = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '–';
