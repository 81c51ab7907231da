import { consoleStore } from '../../functions/dependencies.ts';
import type { ConsoleRole } from '../../functions/domain/console-access.ts';
import { issueSignInToken } from '../../functions/use-cases/console-sessions.ts';
import { signInLinkOf } from '../../lib/local/console-sign-in.ts';
import { httpRequest, type PageResponse } from './navigate.ts';

/** A one-time sign-in link into the stack's console, as `npm run console -- sign-in-link` prints it. */
export const consoleSignInLink = (baseUrl: string, account: string, role: ConsoleRole) =>
  signInLinkOf(baseUrl, consoleStore(), { account, role, user: `${role}@${account}` });

/** A sign-in token that expired `ago` ms ago (issued as if the clock were back then). */
export const expiredSignInToken = (account: string, role: ConsoleRole) =>
  issueSignInToken(
    { store: consoleStore(), now: () => new Date(Date.now() - 16 * 60_000) },
    { account, role, user: `${role}@${account}` },
  );

/** A console user signed in over plain HTTP: their cookie, and the CSRF token of their forms. */
export interface ConsoleClient {
  cookie: string;
  csrf: string;
  get(path: string): Promise<PageResponse>;
  /** Posts a form; the session's CSRF token is added unless the fields set `csrf_token` (or it is `null`). */
  post(path: string, fields: Record<string, string | null>): Promise<PageResponse>;
}

export function consoleClient(baseUrl: string, cookie: string, csrf: string): ConsoleClient {
  const headers = { cookie };
  return {
    cookie,
    csrf,
    get: (path) => httpRequest(`${baseUrl}${path}`, { headers }),
    post: (path, fields) => {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries({ csrf_token: csrf, ...fields })) {
        if (value !== null) form.set(name, value);
      }
      return httpRequest(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
    },
  };
}

/** Signs in through a fresh sign-in link, as a browser would, and reads the CSRF token off the first page. */
export async function signInToConsole(baseUrl: string, account: string, role: ConsoleRole) {
  const link = new URL(await consoleSignInLink(baseUrl, account, role));
  const signedIn = await httpRequest(`${baseUrl}/console/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: link.searchParams.get('token') ?? '' }).toString(),
  });
  const setCookie = [signedIn.headers['set-cookie'] ?? []].flat()[0] ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const page = await httpRequest(`${baseUrl}/console/links`, { headers: { cookie } });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return consoleClient(baseUrl, cookie, csrf);
}
