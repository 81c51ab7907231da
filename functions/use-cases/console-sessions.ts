import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  type AuditEntry,
  type ConsoleAction,
  type ConsoleSession,
  type ConsoleUser,
  isLive,
  SIGN_IN_LINK_TTL_MS,
  type SignInGrant,
  sessionExpiry,
} from '../domain/console-access.ts';
import type { Mode } from '../domain/principal.ts';
import type { ConsoleStore } from '../ports/console-store.ts';
import type { IdentityProvider } from '../ports/identity-provider.ts';

export interface ConsoleSessionDependencies {
  store: ConsoleStore;
  now: () => Date;
}

/** 256 bits from the CSPRNG, URL-safe: sign-in tokens, session ids and CSRF tokens. */
const secretToken = () => randomBytes(32).toString('base64url');
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/**
 * A one-time sign-in link's token (local stack and operators: `npm run console -- sign-in-link`). Only its hash
 * is stored: whoever reads the table cannot sign in with it.
 */
export async function issueSignInToken(
  deps: ConsoleSessionDependencies,
  grant: SignInGrant,
): Promise<string> {
  const token = secretToken();
  await deps.store.saveSignInLink(hashOf(token), grant, new Date(deps.now().getTime() + SIGN_IN_LINK_TTL_MS));
  return token;
}

/** A new session's cookie value and the session itself (test mode first: nothing real happens by mistake). */
export async function startSession(
  deps: ConsoleSessionDependencies,
  grant: SignInGrant,
): Promise<{ sessionId: string; session: ConsoleSession }> {
  const sessionId = secretToken();
  const createdAt = deps.now().toISOString();
  const session: ConsoleSession = {
    ...grant,
    mode: 'test',
    id_hash: hashOf(sessionId),
    csrf_token: secretToken(),
    created_at: createdAt,
    expires_at: sessionExpiry(createdAt, deps.now()),
  };
  await deps.store.saveSession(session);
  return { sessionId, session };
}

/** Signs in with a sign-in link's token: a session once, undefined for a forged, used or expired token. */
export async function signInWithToken(
  deps: ConsoleSessionDependencies,
  token: string,
): Promise<{ sessionId: string; session: ConsoleSession } | undefined> {
  if (!/^[\w-]{43}$/.test(token)) return undefined;
  const grant = await deps.store.consumeSignInLink(hashOf(token), deps.now());
  return grant && startSession(deps, grant);
}

/**
 * The live session of a cookie's id, its idle timeout moved on; undefined when there is none or it ended (an
 * ended one is deleted).
 */
export async function resumeSession(
  deps: ConsoleSessionDependencies,
  sessionId: string | undefined,
): Promise<ConsoleSession | undefined> {
  if (!sessionId) return undefined;
  const idHash = hashOf(sessionId);
  const session = await deps.store.getSession(idHash);
  if (!session) return undefined;
  const now = deps.now();
  if (!isLive(session, now)) {
    await deps.store.deleteSession(idHash);
    return undefined;
  }
  const expires_at = sessionExpiry(session.created_at, now);
  await deps.store.updateSession(idHash, { expires_at });
  return { ...session, expires_at };
}

export async function switchMode(deps: ConsoleSessionDependencies, session: ConsoleSession, mode: Mode) {
  await deps.store.updateSession(session.id_hash, { expires_at: session.expires_at, mode });
}

export async function endSession(deps: ConsoleSessionDependencies, session: ConsoleSession) {
  await deps.store.deleteSession(session.id_hash);
}

/** Whether a form's token is its session's (constant time: the comparison leaks nothing of the token). */
export function csrfMatches(session: ConsoleSession, sent: string | undefined): boolean {
  const expected = Buffer.from(session.csrf_token);
  const actual = Buffer.from(sent ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Records one change made in the console. */
export async function recordChange(
  deps: ConsoleSessionDependencies,
  user: ConsoleUser,
  change: { action: ConsoleAction; target: string | null; sourceIp: string },
): Promise<void> {
  const entry: AuditEntry = {
    account: user.account,
    mode: user.mode,
    user: user.user,
    role: user.role,
    action: change.action,
    target: change.target,
    source_ip: change.sourceIp,
    at: deps.now().toISOString(),
  };
  await deps.store.recordAudit(entry);
}

/**
 * The start of a hosted sign-in (OAuth 2.0 authorization code with PKCE, RFC 7636): where to send the browser,
 * and the `state` and code verifier the browser keeps (in a short-lived cookie) until it comes back.
 */
export function beginHostedSignIn(identity: IdentityProvider): {
  url: string;
  state: string;
  verifier: string;
} {
  const state = secretToken();
  const verifier = secretToken();
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { url: identity.authorizeUrl(state, challenge), state, verifier };
}

/** The end of a hosted sign-in: a session for the verified user, undefined when the provider's answer is not. */
export async function finishHostedSignIn(
  deps: ConsoleSessionDependencies,
  identity: IdentityProvider,
  code: string,
  verifier: string,
): Promise<{ sessionId: string; session: ConsoleSession } | undefined> {
  const grant = await identity.exchange(code, verifier);
  return grant && startSession(deps, grant);
}
