import type { Jwks } from 'aws-jwt-verify/jwk';
import { ACCOUNT_PATTERN } from '../../domain/api-key.ts';
import { CONSOLE_ROLES, type ConsoleRole, type SignInGrant } from '../../domain/console-access.ts';
import type { IdentityProvider } from '../../ports/identity-provider.ts';

export interface CognitoSettings {
  userPoolId: string;
  clientId: string;
  /** The user pool domain's base URL, e.g. `https://pl-console-prod.auth.eu-west-1.amazoncognito.com`. */
  domain: string;
  /** Where Cognito returns the browser: `<base>/console/auth/callback`, as the app client lists it. */
  redirectUri: string;
  /** Where Cognito sends the browser after signing out: `<base>/console/sign-in`, in the app client's logout URLs. */
  signedOutUri: string;
}

/**
 * Cognito's hosted sign-in: the authorization endpoint, the token endpoint (a public client: PKCE, no secret),
 * and the ID token verified with aws-jwt-verify against the pool's keys (issuer, audience, expiry, `token_use`).
 * A user's account and role are the custom attributes `custom:account` and `custom:role`, which only operators
 * may set (`npm run console -- invite`): the app client cannot write them.
 */
export class CognitoIdentityProvider implements IdentityProvider {
  private readonly settings: CognitoSettings;
  private readonly fetch: typeof globalThis.fetch;
  private trustedKeys: Jwks | undefined;
  private verifier: Promise<{ verify(token: string): Promise<Record<string, unknown>> }> | undefined;

  constructor(settings: CognitoSettings, fetchImpl: typeof globalThis.fetch = globalThis.fetch) {
    this.settings = settings;
    this.fetch = fetchImpl;
  }

  /**
   * Trusts these signing keys without fetching the pool's JWKS (aws-jwt-verify's `cacheJwks`): for tests, whose
   * tokens are signed by a key of their own.
   */
  trustKeys(jwks: Jwks): void {
    this.trustedKeys = jwks;
  }

  /**
   * aws-jwt-verify, loaded on the first sign-in: the console's function is the only one that signs people in,
   * and the others share this module's composition root (functions/dependencies.ts), so a static import would put
   * the library in every bundle.
   */
  private verifierOfPool() {
    this.verifier ??= import('aws-jwt-verify').then(({ CognitoJwtVerifier }) => {
      const verifier = CognitoJwtVerifier.create({
        userPoolId: this.settings.userPoolId,
        tokenUse: 'id',
        clientId: this.settings.clientId,
      });
      if (this.trustedKeys) verifier.cacheJwks(this.trustedKeys);
      return verifier;
    });
    return this.verifier;
  }

  authorizeUrl(state: string, challenge: string): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: this.settings.redirectUri,
      scope: 'openid email',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    return `${this.settings.domain}/oauth2/authorize?${query}`;
  }

  /** Cognito's logout endpoint, which ends its own session and returns the browser to `signedOutUri`. */
  signOutUrl(): string {
    const query = new URLSearchParams({
      client_id: this.settings.clientId,
      logout_uri: this.settings.signedOutUri,
    });
    return `${this.settings.domain}/logout?${query}`;
  }

  async exchange(code: string, verifier: string): Promise<SignInGrant | undefined> {
    const response = await this.fetch(`${this.settings.domain}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: this.settings.clientId,
        code,
        redirect_uri: this.settings.redirectUri,
        code_verifier: verifier,
      }),
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return undefined;
    const { id_token: idToken } = (await response.json()) as { id_token?: string };
    if (!idToken) return undefined;
    const claims = await (await this.verifierOfPool()).verify(idToken).catch(() => undefined);
    return claims && grantOf(claims);
  }
}

/** The grant of verified claims; undefined for a user without a valid account and role. */
export function grantOf(claims: Record<string, unknown>): SignInGrant | undefined {
  const account = claims['custom:account'];
  const role = claims['custom:role'];
  const email = claims.email;
  if (typeof account !== 'string' || !ACCOUNT_PATTERN.test(account)) return undefined;
  if (!CONSOLE_ROLES.includes(role as ConsoleRole) || typeof email !== 'string') return undefined;
  return { account, role: role as ConsoleRole, user: email };
}
