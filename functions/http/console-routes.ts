import { type ConsoleAction, type ConsoleSession, mayPerform } from '../domain/console-access.ts';
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
import { hostedSignInCallback, startHostedSignIn } from './console-hosted-sign-in.ts';
import { type KeysPageDependencies, keyRoutes } from './console-keys.ts';
import { type LinkPageDependencies, linkRoutes } from './console-links.ts';
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
  KeysPageDependencies & {
    /** The hosted sign-in (Cognito) of a deployed stack; none locally, where sign-in links are the way in. */
    identity: IdentityProvider | undefined;
  };

/** One console request, as the routes of functions/http/routes.ts name it (`GET /console/links/{id}`). */
export interface ConsoleRequest {
  event: HtmlEvent;
  route: string;
  https: boolean;
  session: ConsoleSession;
  form: URLSearchParams;
  /** Records a change in the audit log, once the use case made it. */
  audit(action: ConsoleAction, target: string | null): Promise<void>;
}

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
};

const refusal = (status: number, title: string, text: string, https: boolean, session?: ConsoleSession) =>
  consolePage({ status, title, https, session, body: html`<h1>${title}</h1><p>${text}</p>` });

/**
 * Every console route: the sign-in routes without a session, every other one with a live session, the CSRF
 * token of that session on every POST, and the role's permission for what the route does. Then the page or
 * the change, through the use cases the API calls, with the session's account and mode as the principal.
 */
export async function handleConsole(event: HtmlEvent, deps: ConsoleDependencies): Promise<HtmlResult> {
  const route = event.routeKey;
  const https = consoleHttps(event);
  if (route === 'GET /console/auth/callback' && deps.identity) {
    return hostedSignInCallback(event, deps, deps.identity);
  }
  if (route === 'GET /console/sign-in') return signInPage(event, https, deps.identity);
  if (route === 'POST /console/sign-in') return signIn(event, deps, https);
  const session = await resumeSession(deps, sessionIdOf(event));
  if (!session) {
    if (event.requestContext.http.method !== 'GET') {
      return refusal(401, 'Signed out', 'Your session ended: sign in again.', https);
    }
    return consoleRedirect(`${CONSOLE_BASE}/sign-in`, https);
  }
  const form = event.requestContext.http.method === 'POST' ? formOf(event) : new URLSearchParams();
  if (
    event.requestContext.http.method === 'POST' &&
    !csrfMatches(session, form.get('csrf_token') ?? undefined)
  ) {
    return refusal(
      403,
      'Form expired',
      'This form is not from your session: open the page again.',
      https,
      session,
    );
  }
  const action = ACTION_OF[route];
  if (action && !mayPerform(session.role, action)) {
    return refusal(403, 'Not allowed', `Your role (${session.role}) cannot do this.`, https, session);
  }
  const request: ConsoleRequest = {
    event,
    route,
    https,
    session,
    form,
    audit: (change, target) =>
      recordChange(deps, session, { action: change, target, sourceIp: event.requestContext.http.sourceIp }),
  };
  return (
    (await sessionRoutes(request, deps)) ??
    (await linkRoutes(request, deps)) ??
    (await webhookRoutes(request, deps)) ??
    (await pspRoutes(request, deps)) ??
    (await settingsRoutes(request, deps)) ??
    (await keyRoutes(request, deps)) ??
    notFound(request)
  );
}

const notFound = (request: ConsoleRequest) =>
  refusal(
    404,
    'Not found',
    'There is no such page in this account and mode.',
    request.https,
    request.session,
  );

/** The page a sign-in link opens: one button, so that a link previewer that fetches it does not use it up. */
function signInPage(event: HtmlEvent, https: boolean, identity: IdentityProvider | undefined): HtmlResult {
  const token = event.queryStringParameters?.token;
  if (!token && identity) return startHostedSignIn(identity);
  const body = token
    ? html`<h1>Sign in to the console</h1><form method="post" action="${CONSOLE_BASE}/sign-in">
<input type="hidden" name="token" value="${token}"><button type="submit">Sign in</button></form>`
    : signInBody(undefined, undefined);
  return consolePage({ title: 'Sign in', https, body });
}

async function signIn(event: HtmlEvent, deps: ConsoleDependencies, https: boolean): Promise<HtmlResult> {
  const signedIn = await signInWithToken(deps, formOf(event).get('token') ?? '');
  if (!signedIn) {
    const problem =
      'This sign-in link cannot be used: it was used already, it expired, or it was never issued.';
    return consolePage({ status: 401, title: 'Sign in', https, body: signInBody(problem, undefined) });
  }
  return consoleRedirect(`${CONSOLE_BASE}/links`, https, [sessionCookie(signedIn.sessionId, https)]);
}

/** Routes about the session itself, and the audit log. */
async function sessionRoutes(request: ConsoleRequest, deps: ConsoleDependencies) {
  const { route, session, https } = request;
  switch (route) {
    case 'GET /console':
      return consoleRedirect(`${CONSOLE_BASE}/links`, https);
    case 'POST /console/sign-out':
      await endSession(deps, session);
      return consoleRedirect(`${CONSOLE_BASE}/sign-in`, https, [clearedSessionCookie(https)]);
    case 'POST /console/mode': {
      const mode = request.form.get('mode') as Mode;
      if (!MODES.includes(mode)) return notFound(request);
      await switchMode(deps, session, mode);
      await request.audit('mode.switch', mode);
      const back = request.form.get('back') ?? '';
      // Back to the same list or form; a link of one mode does not exist in the other.
      const safeBack =
        /^\/console(\/overview|\/links(\/new)?|\/audit|\/webhooks|\/psps|\/settings|\/exports|\/keys)?$/.test(
          back,
        )
          ? back
          : `${CONSOLE_BASE}/links`;
      return consoleRedirect(safeBack, https);
    }
    case 'GET /console/audit': {
      const entries = await deps.store.listAudit(session.account, 100);
      return consolePage({
        title: 'Audit log',
        https,
        session,
        path: `${CONSOLE_BASE}/audit`,
        body: auditBody(entries),
      });
    }
    case 'GET /console/exports':
      // A placeholder until the account-wide payments and refunds lists with their CSV form exist (issue 37).
      return consolePage({
        title: 'Exports',
        https,
        session,
        path: `${CONSOLE_BASE}/exports`,
        body: html`<h1>Exports</h1><p>Not available yet: the account-wide payments and refunds, as CSV, come with the
API's own exports. Until then each link's page lists its payments and refunds.</p>`,
      });
    default:
      return undefined;
  }
}
