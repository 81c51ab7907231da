/**
 * A value built on first use and then shared for the life of the container: SDK clients, adapters, zod schemas.
 * Nothing is built while the bundle loads, so a cold import pays for code only. Mark each module-scope call
 * `@__PURE__`: then esbuild drops the getters a handler never calls, and with them the clients and SDKs only
 * they use. (esbuild honours `@__NO_SIDE_EFFECTS__` on a function only within the file that declares it.)
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}
