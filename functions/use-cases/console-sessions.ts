import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  type ConsoleSession,
  isLive,
  SIGN_IN_LINK_TTL_MS,
  type SignInGrant,
  sessionExpiry,
} from '../domain/console-access.ts';
import type { Mode } from '../domain/principal.ts';
import type { ConsoleStore } from '../ports/console-store.ts';
import type { IdentityProvider } from '../ports/identity-provider.ts';
import { auditedChange, recordRefusal } from './console-audit.ts';

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

/** A new session and its cookie value, or undefined when the sign-in was refused (and recorded so). */
export type SignedIn = { sessionId: string; session: ConsoleSession } | undefined;

/**
 * Signs in with a sign-in link's token: a session once, undefined for a forged, used or expired token. Every
 * attempt is in the audit log: a refusal as such (an unknown token under no account: nothing says whose it was),
 * a sign-in as an entry written before the link is used and settled after (`auditedChange`).
 */
export async function signInWithToken(
  deps: ConsoleSessionDependencies,
  token: string,
  sourceIp: string,
): Promise<SignedIn> {
  const attempt = { action: 'session.sign-in', target: null, sourceIp } as const;
  const tokenHash = /^[\w-]{43}$/.test(token) ? hashOf(token) : undefined;
  const link = tokenHash && (await deps.store.findSignInLink(tokenHash));
  if (!tokenHash || !link) {
    await recordRefusal(deps, undefined, attempt, 'link-unknown');
    return undefined;
  }
  if (!isLive(link, deps.now())) {
    await recordRefusal(deps, link.grant, attempt, 'link-expired');
    return undefined;
  }
  return auditedChange(
    deps,
    { ...link.grant, mode: 'test' },
    attempt,
    async () => {
      const grant = await deps.store.consumeSignInLink(tokenHash, deps.now());
      return grant && startSession(deps, grant);
    },
    // A link used in between by another request: this one starts nothing.
    (signedIn) => (signedIn ? { outcome: 'succeeded' } : { outcome: 'failed', reason: 'link-used' }),
  );
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

/** Signs out: the session is deleted (its entry in the audit log is the route's, as for every change). */
export async function endSession(deps: ConsoleSessionDependencies, session: ConsoleSession) {
  await deps.store.deleteSession(session.id_hash);
}

/** Whether a form's token is its session's (constant time: the comparison leaks nothing of the token). */
export function csrfMatches(session: ConsoleSession, sent: string | undefined): boolean {
  const expected = Buffer.from(session.csrf_token);
  const actual = Buffer.from(sent ?? '');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
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

/**
 * The end of a hosted sign-in: a session for the verified user, undefined when the provider's answer is not. Both
 * are in the audit log, as for a sign-in link (`signInWithToken`).
 */
export async function finishHostedSignIn(
  deps: ConsoleSessionDependencies,
  identity: IdentityProvider,
  flow: { code: string; verifier: string },
  sourceIp: string,
): Promise<SignedIn> {
  const attempt = { action: 'session.sign-in', target: null, sourceIp } as const;
  const grant = await identity.exchange(flow.code, flow.verifier);
  if (!grant) {
    await recordRefusal(deps, undefined, attempt, 'identity');
    return undefined;
  }
  return auditedChange(deps, { ...grant, mode: 'test' }, attempt, () => startSession(deps, grant));
}
