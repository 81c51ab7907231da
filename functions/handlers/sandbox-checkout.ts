import { config } from '../config.ts';
import { now, sandboxNotifier, sandboxSessionStore } from '../dependencies.ts';
import { resolveLocale } from '../domain/locale.ts';
import { sandboxPage } from '../http/checkout/sandbox-views.ts';
import { htmlHandler, isHttps } from '../http/html-handler.ts';
import {
  declineSandboxSession,
  paySandboxSession,
  type SandboxDependencies,
  visitSandboxSession,
} from '../use-cases/sandbox-checkout.ts';

/** The sandbox PSP's hosted page: GET /sandbox/checkout/{id}, POST …/{id}/pay and …/{id}/decline. */
export const handler = htmlHandler(async (event) => {
  const id = event.pathParameters?.id ?? '';
  const deps: SandboxDependencies = {
    sessions: sandboxSessionStore(),
    notify: (session) => sandboxNotifier().notify(session),
    now,
  };
  const options = {
    https: isHttps(event) || config().BASE_URL.startsWith('https:'),
    locale: resolveLocale(undefined, event.headers['accept-language']),
  };
  if (event.routeKey.endsWith('/pay')) {
    const session = await paySandboxSession(deps, id);
    if (session.status !== 'complete') return sandboxPage(session, options);
    // 303: the browser follows with a GET, back to the merchant (or our "payment received" page).
    const page = await sandboxPage(session, options);
    return { ...page, statusCode: 303, headers: { ...page.headers, Location: session.success_url } };
  }
  if (event.routeKey.endsWith('/decline')) {
    const session = await declineSandboxSession(deps, id);
    return sandboxPage(session, { ...options, declined: true });
  }
  return sandboxPage(await visitSandboxSession(deps, id), options);
});
