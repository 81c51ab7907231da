import type { SignInGrant } from '../domain/console-access.ts';

/**
 * The console's hosted sign-in (Amazon Cognito when deployed): OAuth 2.0 authorization code with PKCE. The
 * provider says who signed in and which account and role they have; the console then starts its own session.
 */
export interface IdentityProvider {
  /** Where to send the browser to sign in, with the request's `state` and PKCE `challenge` (S256). */
  authorizeUrl(state: string, challenge: string): string;
  /** The grant of a returned authorization code, once its tokens are verified; undefined if they are not. */
  exchange(code: string, verifier: string): Promise<SignInGrant | undefined>;
  /**
   * Where to send the browser once the console's own session has ended, so that the provider's session ends too:
   * else the next sign-in would pass through the provider without asking anyone.
   */
  signOutUrl(): string;
}
