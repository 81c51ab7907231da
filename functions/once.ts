/** Which container the values built by `once` belong to (see `startNewContainer`). */
let container = 0;

/**
 * A value built on first use and then shared for the life of the container: SDK clients, adapters, zod schemas.
 * Nothing is built while the bundle loads, so a cold import pays for code only. Mark each module-scope call
 * `@__PURE__`: then esbuild drops the getters a handler never calls, and with them the clients and SDKs only
 * they use. (esbuild honours `@__NO_SIDE_EFFECTS__` on a function only within the file that declares it.)
 */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let builtIn = -1;
  return () => {
    if (builtIn !== container) {
      value = build();
      builtIn = container;
    }
    return value as T;
  };
}

/**
 * Local stack only (lib/local/local-stack.ts): every value built by `once` is built again at its next use, as in
 * a new container. On Lambda a container never changes its configuration; in one process, local stacks started
 * one after another (the integration tests' files share their worker's modules, docs/testing.md#speed) each
 * have their own embedded servers, table and environment, which the clients and adapters must be built for.
 */
export function startNewContainer(): void {
  container += 1;
}
