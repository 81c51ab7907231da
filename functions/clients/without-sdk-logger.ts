/**
 * The AWS SDK's logger middleware builds a filtered copy of every command's input and output for the client's
 * logger, the default no-op one included: a walk over each item written or read, on every call. No client of
 * ours has an SDK logger (our lines come from functions/logger.ts), so each drops the middleware.
 */
export function withoutSdkLogger<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
