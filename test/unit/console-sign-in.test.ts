import { createSign, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CognitoIdentityProvider } from '../../functions/adapters/http/cognito-identity.ts';
import type { AuditEntry, ConsoleSession, SignInGrant } from '../../functions/domain/console-access.ts';
import { hostedSignInCallback, startHostedSignIn } from '../../functions/http/console/hosted-sign-in.ts';
import { loadConsoleMessages } from '../../functions/http/console/messages.ts';
import { escapeHtml } from '../../functions/http/html.ts';
import type { HtmlEvent } from '../../functions/http/html-handler.ts';
import type { ConsoleStore } from '../../functions/ports/console-store.ts';

const POOL = 'eu-west-1_Console1';
const CLIENT = 'console-client-id';
const settings = {
  userPoolId: POOL,
  clientId: CLIENT,
  domain: 'https://pl-console.auth.eu-west-1.amazoncognito.com',
  redirectUri: 'https://api.example.com/console/auth/callback',
  signedOutUri: 'https://api.example.com/console/sign-in',
};

const poolKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const { kty = 'RSA', n = '', e = '' } = poolKey.publicKey.export({ format: 'jwk' });
const jwks = { keys: [{ kty, n, e, kid: 'pool', alg: 'RS256', use: 'sig' }] };

/** An ID token as Cognito signs one, with `claims` over the usual ones. */
function idToken(claims: Record<string, unknown>, key = poolKey.privateKey): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${encode({ alg: 'RS256', kid: 'pool', typ: 'JWT' })}.${encode({
    iss: `https://cognito-idp.eu-west-1.amazonaws.com/${POOL}`,
    aud: CLIENT,
    token_use: 'id',
    iat: now,
    exp: now + 900,
    email: 'fin@acme.example',
    'custom:account': 'acme',
    'custom:role': 'finance',
    ...claims,
  })}`;
  return `${body}.${createSign('RSA-SHA256').update(body).sign(key, 'base64url')}`;
}

/** The provider, its token endpoint answering `answer`; the requests it was sent are kept. */
function provider(answer: { status: number; body: unknown }) {
  const sent: URLSearchParams[] = [];
  const fetchImpl = (async (_url: string, init: RequestInit) => {
    sent.push(new URLSearchParams(String(init.body)));
    return new Response(JSON.stringify(answer.body), { status: answer.status });
  }) as typeof fetch;
  const identity = new CognitoIdentityProvider(settings, fetchImpl);
  identity.trustKeys(jwks);
  return { identity, sent };
}

describe('Cognito hosted sign-in', () => {
  it('sends the browser with a PKCE S256 challenge and state, and exchanges the code with its verifier', async () => {
    const { identity, sent } = provider({ status: 200, body: { id_token: idToken({}) } });

    const url = new URL(identity.authorizeUrl('state-1', 'challenge-1'));
    const grant = await identity.exchange('code-1', 'verifier-1');

    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: CLIENT,
      redirect_uri: settings.redirectUri,
      state: 'state-1',
      code_challenge: 'challenge-1',
      code_challenge_method: 'S256',
    });
    expect(Object.fromEntries(sent[0] ?? [])).toMatchObject({ code: 'code-1', code_verifier: 'verifier-1' });
    expect(grant).toEqual({ account: 'acme', role: 'finance', user: 'fin@acme.example' });
  });

  it("ends Cognito's own session on sign-out, returning to the console's sign-in page", () => {
    const url = new URL(provider({ status: 200, body: {} }).identity.signOutUrl());

    expect(`${url.origin}${url.pathname}`).toBe(`${settings.domain}/logout`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: CLIENT,
      logout_uri: settings.signedOutUri,
    });
  });

  it('refuses a token another key signed, one for another client, and a user without a valid role', async () => {
    const answers = [
      idToken({}, otherKey.privateKey),
      idToken({ aud: 'another-client' }),
      idToken({ 'custom:role': 'owner' }),
      idToken({ 'custom:account': undefined }),
    ];

    const grants = await Promise.all(
      answers.map((token) =>
        provider({ status: 200, body: { id_token: token } }).identity.exchange('c', 'v'),
      ),
    );
    const refusedCode = await provider({ status: 400, body: { error: 'invalid_grant' } }).identity.exchange(
      'c',
      'v',
    );

    expect(grants).toEqual([undefined, undefined, undefined, undefined]);
    expect(refusedCode).toBeUndefined();
  });
});

/** An in-memory console store: sessions and the audit log, as the callback needs. */
function memoryStore(): ConsoleStore & { sessions: Map<string, ConsoleSession>; audit: AuditEntry[] } {
  const sessions = new Map<string, ConsoleSession>();
  const audit: AuditEntry[] = [];
  const unused = () => Promise.reject(new Error('not used here'));
  return {
    sessions,
    audit,
    saveSession: async (session) => void sessions.set(session.id_hash, session),
    getSession: async (idHash) => sessions.get(idHash),
    saveSignInLink: unused,
    findSignInLink: unused,
    consumeSignInLink: unused,
    updateSession: unused,
    deleteSession: unused,
    recordAudit: async (entry) => void audit.push(entry),
    settleAudit: async (entry) => {
      audit.splice(
        audit.findIndex((stored) => stored.id === entry.id),
        1,
        entry,
      );
    },
    listAudit: unused,
  };
}

const callbackEvent = (query: Record<string, string>, cookies: string[], headers = {}) =>
  ({ queryStringParameters: query, cookies, headers }) as unknown as HtmlEvent;

describe('the console callback', () => {
  const grant: SignInGrant = { account: 'acme', role: 'admin', user: 'a@acme.example' };
  const identity = {
    authorizeUrl: (state: string, challenge: string) =>
      `https://idp.example/authorize?state=${state}&c=${challenge}`,
    exchange: async (code: string) => (code === 'good' ? grant : undefined),
    signOutUrl: () => 'https://idp.example/logout',
  };

  it('starts a session for the browser that began the sign-in, and for no other', async () => {
    const store = memoryStore();
    const begun = startHostedSignIn(identity);
    const flowCookie = String(begun.cookies?.[0]).split(';')[0] as string;
    const state = new URL(String(begun.headers?.Location)).searchParams.get('state') as string;
    const deps = { store, now: () => new Date() };

    const otherBrowser = await hostedSignInCallback(
      callbackEvent({ code: 'good', state }, []),
      deps,
      identity,
      '203.0.113.7',
    );
    const wrongState = await hostedSignInCallback(
      callbackEvent({ code: 'good', state: 'forged' }, [flowCookie]),
      deps,
      identity,
      '203.0.113.7',
    );
    const signedIn = await hostedSignInCallback(
      callbackEvent({ code: 'good', state }, [flowCookie]),
      deps,
      identity,
      '203.0.113.7',
    );

    expect(begun.cookies?.[0]).toMatch(
      /^__Host-console_sign_in=[\w-]+\.[\w-]+; Path=\/; Secure; HttpOnly; SameSite=Lax/,
    );
    expect([otherBrowser.statusCode, wrongState.statusCode, signedIn.statusCode]).toEqual([401, 401, 303]);
    expect(signedIn.cookies?.[0]).toMatch(
      /^__Host-console_session=[\w-]{43}; Path=\/; Secure; HttpOnly; SameSite=Strict$/,
    );
    expect(
      [...store.sessions.values()].map((session) => [session.account, session.role, session.mode]),
    ).toEqual([['acme', 'admin', 'test']]);
  });

  it('records each sign-in and each refusal in the audit log, the refusals under no account', async () => {
    const store = memoryStore();
    const deps = { store, now: () => new Date('2026-11-28T09:00:00.000Z') };
    const begun = startHostedSignIn(identity);
    const flowCookie = String(begun.cookies?.[0]).split(';')[0] as string;
    const state = new URL(String(begun.headers?.Location)).searchParams.get('state') as string;
    const callback = (code: string, cookies: string[]) =>
      hostedSignInCallback(callbackEvent({ code, state }, cookies), deps, identity, '203.0.113.7');

    await callback('good', [flowCookie]);
    await callback('refused-by-cognito', [flowCookie]);
    await callback('good', []);

    const recorded = store.audit.map(({ account, user, role, action, outcome, reason, source_ip }) => ({
      account,
      user,
      role,
      action,
      outcome,
      reason,
      source_ip,
    }));
    const nobody = {
      account: '*',
      user: null,
      role: null,
      action: 'session.sign-in',
      source_ip: '203.0.113.7',
    };
    expect(recorded).toEqual([
      {
        account: 'acme',
        user: 'a@acme.example',
        role: 'admin',
        action: 'session.sign-in',
        outcome: 'succeeded',
        reason: null,
        source_ip: '203.0.113.7',
      },
      { ...nobody, outcome: 'refused', reason: 'identity' },
      { ...nobody, outcome: 'refused', reason: 'state' },
    ]);
  });

  it('starts no session when its audit entry cannot be written, and records a session that failed to start', async () => {
    const noAudit = memoryStore();
    noAudit.recordAudit = () => Promise.reject(new Error('audit write failed'));
    const noSession = memoryStore();
    noSession.saveSession = () => Promise.reject(new Error('session write failed'));
    const callback = async (store: ReturnType<typeof memoryStore>) => {
      const begun = startHostedSignIn(identity);
      const flowCookie = String(begun.cookies?.[0]).split(';')[0] as string;
      const state = new URL(String(begun.headers?.Location)).searchParams.get('state') as string;
      const event = callbackEvent({ code: 'good', state }, [flowCookie]);
      return hostedSignInCallback(event, { store, now: () => new Date() }, identity, '203.0.113.7');
    };

    await expect(callback(noAudit)).rejects.toThrow('audit write failed');
    await expect(callback(noSession)).rejects.toThrow('session write failed');

    expect(noAudit.sessions.size).toBe(0);
    expect(noSession.audit.map(({ action, outcome, reason }) => [action, outcome, reason])).toEqual([
      ['session.sign-in', 'failed', 'internal_error'],
    ]);
  });

  it('refuses in the browser’s language, offering to sign in again', async () => {
    const deps = { store: memoryStore(), now: () => new Date() };

    const refused = await hostedSignInCallback(
      callbackEvent({ code: 'good', state: 'forged' }, [], { 'accept-language': 'fr-BE,fr;q=0.9' }),
      deps,
      identity,
      '203.0.113.7',
    );

    const words = await loadConsoleMessages('fr');
    expect(refused.statusCode).toBe(401);
    expect(refused.body).toContain('<html lang="fr">');
    expect(refused.body).toContain(escapeHtml(words.hostedSignIn.refused));
    expect(refused.body).toContain(`<a href="/console/sign-in">${words.signInButton}</a>`);
  });
});
