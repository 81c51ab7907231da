import {
  type AuditedAction,
  type AuditSubject,
  type ConsoleAction,
  type ConsoleSession,
  mayPerform,
} from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import { MODES, type Mode } from '../../domain/principal.ts';
import type { IdentityProvider } from '../../ports/identity-provider.ts';
import { auditedChange, recordRefusal } from '../../use-cases/console-audit.ts';
import {
  type ConsoleSessionDependencies,
  csrfMatches,
  endSession,
  resumeSession,
  signInWithToken,
  switchMode,
} from '../../use-cases/console-sessions.ts';
import { clientAddress } from '../client-address.ts';
import { sentFromAnotherSite } from '../cross-site.ts';
import { html } from '../html.ts';
import type { HtmlEvent, HtmlResult } from '../html-handler.ts';
import { hostedSignInCallback, startHostedSignIn } from './hosted-sign-in.ts';
import { consoleLanguage, consoleMessages, loadConsoleMessages } from './messages.ts';
import {
  CONSOLE_BASE,
  clearedSessionCookie,
  consoleHttps,
  consolePage,
  consoleRedirect,
  formOf,
  sessionCookie,
  sessionIdOf,
} from './page.ts';
import type { PagesDependencies } from './pages.ts';
import type { ConsoleRequest } from './request.ts';
import { auditBody, signInBody } from './session-views.ts';

export type ConsoleDependencies = ConsoleSessionDependencies &
  PagesDependencies & {
    /** The hosted sign-in (Cognito) of a deployed stack; none locally, where sign-in links are the way in. */
    identity: IdentityProvider | undefined;
    /** The origin the console is served from (`BASE_URL`'s): a form naming another was sent by another site. */
    publicOrigin: string;
    /** The CloudFront front's origin secret, when it is deployed (`clientAddress`). */
    edgeSecret: string | undefined;
  };

/**
 * What a route needs beyond a live session, checked against the role before anything runs: every change (each
 * POST but signing in and out), and the pages some roles may not read. Any other page only reads.
 */
export const ACTION_OF: Readonly<Record<string, ConsoleAction>> = {
  'GET /console/links/new': 'link.create',
  'POST /console/links': 'link.create',
  'POST /console/links/{id}/cancel': 'link.cancel',
  'GET /console/links/{id}/payments/{payment_id}/refund': 'refund.create',
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
  'POST /console/settlements/export': 'export.read',
  'POST /console/settlements/{id}/export': 'export.read',
  'GET /console/payments/{id}/erase': 'buyer.erase',
  'POST /console/payments/{id}/erase': 'buyer.erase',
  'GET /console/subscriptions/{id}/cancel': 'subscription.cancel',
  'POST /console/subscriptions/{id}/cancel': 'subscription.cancel',
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
 * What the audit log records a session route as, beyond the role-checked actions of `ACTION_OF`: every console
 * POST has one or the other (test/unit/console-routes.test.ts), so every change and every refused form is recorded.
 */
export const SESSION_ACTION_OF: Readonly<Record<string, AuditedAction>> = {
  'POST /console/sign-out': 'session.sign-out',
};

/**
 * Every console route: the sign-in routes without a session, every other one with a live session, on every POST
 * a form of our own site (Fetch Metadata, then `Origin`) with the CSRF token of that session, and the role's
 * permission for what the route does. Then the page or the change, through the use cases the API calls, with the
 * session's account and mode as the principal. Sign-ins, every change (each POST) and every refusal (403) are in
 * the audit log: a refusal as such, a change as an entry written before it and settled with its outcome after.
 */
export async function handleConsole(event: HtmlEvent, deps: ConsoleDependencies): Promise<HtmlResult> {
  const route = event.routeKey;
  const context = { https: consoleHttps(event), language: consoleLanguage(event) };
  await loadConsoleMessages(context.language);
  const sourceIp = clientAddress(event, deps.edgeSecret);
  const post = event.requestContext.http.method === 'POST';
  const foreign = post && sentFromAnotherSite(event.headers, deps.publicOrigin);
  if (route === 'GET /console/auth/callback' && deps.identity) {
    return hostedSignInCallback(event, deps, deps.identity, sourceIp);
  }
  if (route === 'GET /console/sign-in') return signInPage(event, context, deps.identity);
  if (route === 'POST /console/sign-in') return signIn(event, deps, { ...context, sourceIp, foreign });
  const session = await resumeSession(deps, sessionIdOf(event));
  if (!session) {
    if (post) return refusal(401, 'signedOut', context);
    return consoleRedirect(`${CONSOLE_BASE}/sign-in`, context.https);
  }
  const form = post ? formOf(event) : new URLSearchParams();
  return sessionRequest({ event, route, ...context, session, form }, deps, { post, foreign, sourceIp });
}

/**
 * A request of a live session: refused (403, and recorded) for a form of another site, without the session's
 * CSRF token or that the role may not send; else its page, or its change with the change's entry written first
 * and settled with what the route answered.
 */
async function sessionRequest(
  base: Omit<ConsoleRequest, 'audit'>,
  deps: ConsoleDependencies,
  sent: { post: boolean; foreign: boolean; sourceIp: string },
): Promise<HtmlResult> {
  const { route, session } = base;
  const action = ACTION_OF[route] ?? SESSION_ACTION_OF[route];
  const attempt = action && {
    action,
    target: base.event.pathParameters?.id ?? null,
    sourceIp: sent.sourceIp,
  };
  const refused = refusalOf(session, { ...sent, form: base.form, route });
  if (refused) {
    if (attempt) await recordRefusal(deps, session, attempt, refused);
    return refusal(403, refused === 'role' ? 'notAllowed' : 'formExpired', base);
  }
  let made:
    | { target: string | null; reason?: string | undefined; about?: AuditSubject | undefined }
    | undefined;
  const request: ConsoleRequest = {
    ...base,
    audit: async (_change, target, reason, about) => {
      made = { target, reason, about };
    },
  };
  if (!sent.post || !attempt) return routeRequest(request, deps);
  return auditedChange(
    deps,
    session,
    attempt,
    () => routeRequest(request, deps),
    (result) => {
      if (made) {
        const { target, reason, about } = made;
        return { outcome: 'succeeded', target, reason: reason ?? null, ...(about && { about }) };
      }
      const status = result.statusCode ?? 200;
      return status >= 400 ? { outcome: 'failed', reason: String(status) } : { outcome: 'unchanged' };
    },
  );
}

/** Why a session's request is refused before anything runs (403), if it is. */
function refusalOf(
  session: ConsoleSession,
  request: { post: boolean; foreign: boolean; form: URLSearchParams; route: string },
): 'cross-site' | 'csrf' | 'role' | undefined {
  if (request.foreign) return 'cross-site';
  if (request.post && !csrfMatches(session, request.form.get('csrf_token') ?? undefined)) return 'csrf';
  const action = ACTION_OF[request.route];
  return action && !mayPerform(session.role, action) ? 'role' : undefined;
}

/**
 * The session's own routes, else the console's pages (pages.ts): a chunk of their own, which the first request
 * for one of them loads.
 */
async function routeRequest(request: ConsoleRequest, deps: ConsoleDependencies): Promise<HtmlResult> {
  const own = await sessionRoutes(request, deps);
  if (own) return own;
  const { pageRoutes } = await import('./pages.ts');
  return (await pageRoutes(request, deps)) ?? notFound(request);
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

/**
 * `POST /console/sign-in` with a sign-in link's token. A form another site sent is refused before the token is
 * even looked at: otherwise a page of an attacker's could sign a visitor's browser in to the attacker's account
 * (login CSRF), with everything they then type into the console going to it.
 */
async function signIn(
  event: HtmlEvent,
  deps: ConsoleDependencies,
  context: { https: boolean; language: PageLanguage; sourceIp: string; foreign: boolean },
): Promise<HtmlResult> {
  const { sourceIp, foreign, ...page } = context;
  if (foreign) {
    await recordRefusal(deps, undefined, { action: 'session.sign-in', target: null, sourceIp }, 'cross-site');
    return refusal(403, 'formExpired', page);
  }
  const signedIn = await signInWithToken(deps, formOf(event).get('token') ?? '', sourceIp);
  if (!signedIn) {
    const words = consoleMessages(page.language);
    const body = signInBody(words.signInRefused, undefined, words);
    return consolePage({ status: 401, title: words.signInTitle, body, ...page });
  }
  // The overview first: what happened since the last visit, before any list.
  return consoleRedirect(`${CONSOLE_BASE}/overview`, page.https, [
    sessionCookie(signedIn.sessionId, page.https),
  ]);
}

/** Routes about the session itself, and the audit log. */
async function sessionRoutes(request: ConsoleRequest, deps: ConsoleDependencies) {
  const { route, session, https, language } = request;
  switch (route) {
    case 'GET /console':
      return consoleRedirect(`${CONSOLE_BASE}/overview`, https);
    case 'POST /console/sign-out':
      await endSession(deps, session);
      await request.audit('session.sign-out', null);
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
        /^\/console(\/overview|\/links(\/new)?|\/audit|\/webhooks|\/psps|\/settings|\/exports|\/keys|\/payments|\/refunds|\/subscriptions|\/settlements)?$/.test(
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
