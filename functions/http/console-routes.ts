import { type ConsoleAction, type ConsoleSession, mayPerform } from '../domain/console-access.ts';
import type { PageLanguage } from '../domain/locale.ts';
import { MODES, type Mode } from '../domain/principal.ts';
import type { IdentityProvider } from '../ports/identity-provider.ts';
import {
  type ConsoleSessionDependencies,
  csrfMatches,
  endSession,
  recordChange,
  resumeSession,
  signInWithToken,
  switchMode,
} from '../use-cases/console-sessions.ts';
import { type BooksPageDependencies, booksRoutes } from './console-books.ts';
import { hostedSignInCallback, startHostedSignIn } from './console-hosted-sign-in.ts';
import { type KeysPageDependencies, keyRoutes } from './console-keys.ts';
import { type LinkPageDependencies, linkRoutes } from './console-links.ts';
import { consoleLanguage, consoleMessages } from './console-messages.ts';
import {
  CONSOLE_BASE,
  clearedSessionCookie,
  consoleHttps,
  consolePage,
  consoleRedirect,
  formOf,
  sessionCookie,
  sessionIdOf,
} from './console-page.ts';
import { type PspPageDependencies, pspRoutes } from './console-psps.ts';
import type { ConsoleRequest } from './console-request.ts';
import { type SettingsPageDependencies, settingsRoutes } from './console-settings.ts';
import { auditBody, signInBody } from './console-views.ts';
import { type WebhookPageDependencies, webhookRoutes } from './console-webhooks.ts';
import { html } from './html.ts';
import type { HtmlEvent, HtmlResult } from './html-handler.ts';

export type ConsoleDependencies = ConsoleSessionDependencies &
  LinkPageDependencies &
  WebhookPageDependencies &
  PspPageDependencies &
  SettingsPageDependencies &
  BooksPageDependencies &
  KeysPageDependencies & {
    /** The hosted sign-in (Cognito) of a deployed stack; none locally, where sign-in links are the way in. */
    identity: IdentityProvider | undefined;
  };

/**
 * What a route needs beyond a live session, checked against the role before anything runs: every change (each
 * POST but signing in and out), and the pages some roles may not read. Any other page only reads.
 */
export const ACTION_OF: Readonly<Record<string, ConsoleAction>> = {
  'POST /console/links': 'link.create',
  'POST /console/links/{id}/cancel': 'link.cancel',
  'POST /console/links/{id}/refunds': 'refund.create',
  'POST /console/mode': 'mode.switch',
  'POST /console/webhooks': 'webhook.manage',
  'POST /console/webhooks/{id}/status': 'webhook.manage',
  'POST /console/webhooks/{id}/rotate': 'webhook.manage',
  'POST /console/webhooks/{id}/test': 'webhook.manage',
  'POST /console/webhooks/{id}/recover': 'webhook.manage',
  'POST /console/events/{id}/redeliver': 'event.redeliver',
  'POST /console/routing': 'routing.edit',
  'POST /console/settings': 'settings.edit',
  'GET /console/keys': 'keys.manage',
  'POST /console/keys': 'keys.manage',
  'POST /console/keys/{id}/revoke': 'keys.manage',
  'GET /console/audit': 'audit.read',
  'GET /console/exports': 'export.read',
  'POST /console/exports': 'export.read',
  'GET /console/payments/{id}/erase': 'buyer.erase',
  'POST /console/payments/{id}/erase': 'buyer.erase',
};

type Refusal = 'signedOut' | 'formExpired' | 'notAllowed' | 'notFound';

const refusal = (
  status: number,
  reason: Refusal,
  context: { https: boolean; language: PageLanguage; session?: ConsoleSession },
) => {
  const words = consoleMessages(context.language);
  const title = words[`${reason}Title`];
  const text =
    reason === 'notAllowed' ? words.notAllowedText(context.session?.role ?? '') : words[`${reason}Text`];
  return consolePage({ status, title, body: html`<h1>${title}</h1><p>${text}</p>`, ...context });
};

/**
 * Every console route: the sign-in routes without a session, every other one with a live session, the CSRF
 * token of that session on every POST, and the role's permission for what the route does. Then the page or
 * the change, through the use cases the API calls, with the session's account and mode as the principal.
 */
export async function handleConsole(event: HtmlEvent, deps: ConsoleDependencies): Promise<HtmlResult> {
  const route = event.routeKey;
  const https = consoleHttps(event);
  const language = consoleLanguage(event);
  if (route === 'GET /console/auth/callback' && deps.identity) {
    return hostedSignInCallback(event, deps, deps.identity);
  }
  if (route === 'GET /console/sign-in') return signInPage(event, { https, language }, deps.identity);
  if (route === 'POST /console/sign-in') return signIn(event, deps, { https, language });
  const session = await resumeSession(deps, sessionIdOf(event));
  if (!session) {
    if (event.requestContext.http.method !== 'GET') {
      return refusal(401, 'signedOut', { https, language });
    }
    return consoleRedirect(`${CONSOLE_BASE}/sign-in`, https);
  }
  const form = event.requestContext.http.method === 'POST' ? formOf(event) : new URLSearchParams();
  if (
    event.requestContext.http.method === 'POST' &&
    !csrfMatches(session, form.get('csrf_token') ?? undefined)
  ) {
    return refusal(403, 'formExpired', { https, language, session });
  }
  const action = ACTION_OF[route];
  if (action && !mayPerform(session.role, action)) {
    return refusal(403, 'notAllowed', { https, language, session });
  }
  const request: ConsoleRequest = {
    event,
    route,
    https,
    session,
    form,
    language,
    audit: (change, target) =>
      recordChange(deps, session, { action: change, target, sourceIp: event.requestContext.http.sourceIp }),
  };
  return (
    (await sessionRoutes(request, deps)) ??
    (await linkRoutes(request, deps)) ??
    (await webhookRoutes(request, deps)) ??
    (await pspRoutes(request, deps)) ??
    (await settingsRoutes(request, deps)) ??
    (await booksRoutes(request, deps)) ??
    (await keyRoutes(request, deps)) ??
    notFound(request)
  );
}

const notFound = (request: ConsoleRequest) => refusal(404, 'notFound', request);

/** The page a sign-in link opens: one button, so that a link previewer that fetches it does not use it up. */
function signInPage(
  event: HtmlEvent,
  context: { https: boolean; language: PageLanguage },
  identity: IdentityProvider | undefined,
): HtmlResult {
  const token = event.queryStringParameters?.token;
  if (!token && identity) return startHostedSignIn(identity);
  const words = consoleMessages(context.language);
  const body = token
    ? html`<h1>${words.signInHeading}</h1><form method="post" action="${CONSOLE_BASE}/sign-in">
<input type="hidden" name="token" value="${token}"><button type="submit">${words.signInButton}</button></form>`
    : signInBody(undefined, undefined, words);
  return consolePage({ title: words.signInTitle, body, ...context });
}

async function signIn(
  event: HtmlEvent,
  deps: ConsoleDependencies,
  context: { https: boolean; language: PageLanguage },
): Promise<HtmlResult> {
  const signedIn = await signInWithToken(deps, formOf(event).get('token') ?? '');
  if (!signedIn) {
    const words = consoleMessages(context.language);
    const body = signInBody(words.signInRefused, undefined, words);
    return consolePage({ status: 401, title: words.signInTitle, body, ...context });
  }
  return consoleRedirect(`${CONSOLE_BASE}/links`, context.https, [
    sessionCookie(signedIn.sessionId, context.https),
  ]);
}

/** Routes about the session itself, and the audit log. */
async function sessionRoutes(request: ConsoleRequest, deps: ConsoleDependencies) {
  const { route, session, https, language } = request;
  switch (route) {
    case 'GET /console':
      return consoleRedirect(`${CONSOLE_BASE}/links`, https);
    case 'POST /console/sign-out':
      await endSession(deps, session);
      return consoleRedirect(deps.identity?.signOutUrl() ?? `${CONSOLE_BASE}/sign-in`, https, [
        clearedSessionCookie(https),
      ]);
    case 'POST /console/mode': {
      const mode = request.form.get('mode') as Mode;
      if (!MODES.includes(mode)) return notFound(request);
      await switchMode(deps, session, mode);
      await request.audit('mode.switch', mode);
      const back = request.form.get('back') ?? '';
      // Back to the same list or form; a link of one mode does not exist in the other.
      const safeBack =
        /^\/console(\/overview|\/links(\/new)?|\/audit|\/webhooks|\/psps|\/settings|\/exports|\/keys|\/payments|\/refunds)?$/.test(
          back,
        )
          ? back
          : `${CONSOLE_BASE}/links`;
      return consoleRedirect(safeBack, https);
    }
    case 'GET /console/audit': {
      const entries = await deps.store.listAudit(session.account, 100);
      return consolePage({
        title: consoleMessages(language).audit.title,
        https,
        session,
        path: `${CONSOLE_BASE}/audit`,
        language,
        body: auditBody(entries, language),
      });
    }
    default:
      return undefined;
  }
}
