import type { IdentityProvider } from '../../ports/identity-provider.ts';
import { recordRefusal } from '../../use-cases/console-audit.ts';
import {
  beginHostedSignIn,
  type ConsoleSessionDependencies,
  finishHostedSignIn,
  type SignedIn,
} from '../../use-cases/console-sessions.ts';
import type { HtmlEvent, HtmlResult } from '../html-handler.ts';
import { consoleLanguage, loadConsoleMessages } from './messages.ts';
import { CONSOLE_BASE, consolePage, consoleRedirect, sessionCookie } from './page.ts';
import { signInBody } from './session-views.ts';

/**
 * The browser keeps the sign-in's `state` and PKCE verifier for the round trip to the hosted sign-in page. Lax,
 * not Strict: the way back from Cognito is a navigation from another site, which a Strict cookie would miss.
 */
const FLOW_COOKIE = '__Host-console_sign_in';
const FLOW_SECONDS = 600;

/** Sends the browser to the hosted sign-in page. */
export function startHostedSignIn(identity: IdentityProvider): HtmlResult {
  const { url, state, verifier } = beginHostedSignIn(identity);
  const cookie = `${FLOW_COOKIE}=${state}.${verifier}; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=${FLOW_SECONDS}`;
  return consoleRedirect(url, true, [cookie]);
}

/**
 * `GET /console/auth/callback?code=&state=`: the state must be the one this browser was sent with (no other site
 * can sign a browser in to its own account), then the code is exchanged with the verifier and its ID token
 * verified. The flow cookie is cleared whatever the outcome; a callback without this browser's state is refused
 * before any exchange, and recorded as such in the audit log (`state`).
 */
export async function hostedSignInCallback(
  event: HtmlEvent,
  deps: ConsoleSessionDependencies,
  identity: IdentityProvider,
  sourceIp: string,
): Promise<HtmlResult> {
  const flow = event.cookies
    ?.find((cookie) => cookie.startsWith(`${FLOW_COOKIE}=`))
    ?.slice(FLOW_COOKIE.length + 1);
  const [state, verifier] = (flow ?? '').split('.');
  const { code, state: returned } = event.queryStringParameters ?? {};
  const cleared = `${FLOW_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Lax; Max-Age=0`;
  let signedIn: SignedIn;
  if (code && state && verifier && returned === state) {
    signedIn = await finishHostedSignIn(deps, identity, { code, verifier }, sourceIp);
  } else {
    await recordRefusal(deps, undefined, { action: 'session.sign-in', target: null, sourceIp }, 'state');
  }
  if (!signedIn) {
    const language = consoleLanguage(event);
    const words = await loadConsoleMessages(language);
    return {
      ...consolePage({
        status: 401,
        title: words.signInTitle,
        https: true,
        language,
        body: signInBody(words.hostedSignIn.refused, `${CONSOLE_BASE}/sign-in`, words),
      }),
      cookies: [cleared],
    };
  }
  return consoleRedirect(`${CONSOLE_BASE}/links`, true, [sessionCookie(signedIn.sessionId, true), cleared]);
}
