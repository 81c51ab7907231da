import { allowedMethodsByPath } from '../../lib/routes.ts';
import { MethodNotAllowedError, NotFoundError } from '../domain/errors.ts';
import { apiHandler } from '../http/api-handler.ts';

const allowed = allowedMethodsByPath();

/**
 * `ANY <path>` for every path we serve, and `$default` for everything else: API Gateway's own answers would be
 * `{"message":"Not Found"}`, so these keep even wrong requests in RFC 9457 form.
 */
export const handler = apiHandler({ auth: false, body: 'none' }, async ({ event }) => {
  const path = event.routeKey.replace(/^ANY /, '');
  const methods = allowed.get(path);
  if (methods) throw new MethodNotAllowedError(methods);
  throw new NotFoundError(`No route for ${event.requestContext.http.method} ${event.rawPath}.`);
});
