import { MethodNotAllowedError, NotFoundError } from '../domain/errors.ts';
import { publicApiHandler } from '../http/api/api-handler.ts';
import { problemResponse } from '../http/problem.ts';
import { allowedMethodsByPath } from '../http/routes.ts';

const allowed = allowedMethodsByPath();

/**
 * `ANY <path>` for every path we serve, and `$default` for everything else: API Gateway's own answers would be
 * `{"message":"Not Found"}`, so these keep even wrong requests in RFC 9457 form.
 */
export const handler = publicApiHandler({ body: 'none' }, async ({ event, requestId }) => {
  const path = event.routeKey.replace(/^ANY /, '');
  const methods = allowed.get(path);
  if (!methods) throw new NotFoundError(`No route for ${event.requestContext.http.method} ${event.rawPath}.`);
  return problemResponse(new MethodNotAllowedError(methods), requestId);
});
