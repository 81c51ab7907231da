import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Stack traces of the deployed bundles, mapped back to our TypeScript files, on demand.
 *
 * Lambda runs minified bundles (`index.mjs`, with `index.mjs.map` beside it). Node's `--enable-source-maps` would
 * read and parse the whole map at every cold start, whether or not anything ever fails: about a quarter of the
 * import time (docs/performance.md). Instead the logger maps the stack of an error it logs, reading a bundle's
 * map on the first such error and keeping it for the life of the container.
 *
 * Only positions in ES module files with a map beside them change (V8 names those by `file:` URL): not the
 * TypeScript sources under `npm start` and the tests, nor Node's own modules.
 */
const maps = new Map<string, SourceMap | undefined>();

function sourceMapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    try {
      maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
    } catch {
      maps.set(file, undefined); // no map, or an unreadable one: the frame keeps its bundle position
    }
  }
  return maps.get(file);
}

/** esbuild names sources relative to the bundle's folder; what follows the `../` is the project path. */
export function sourceMappedStack(stack: string): string {
  return stack.replace(
    /(file:[^\s()]+?\.m?js):(\d+):(\d+)/g,
    (position, url: string, line: string, column: string) => {
      const origin = sourceMapOf(fileURLToPath(url))?.findOrigin(Number(line), Number(column));
      return origin && 'fileName' in origin
        ? `${origin.fileName.replace(/^(\.\.\/)+/, '')}:${origin.lineNumber}:${origin.columnNumber}`
        : position;
    },
  );
}

/** Maps the stacks of an error and of its causes in place, so that every formatter of the error sees them. */
export function mapErrorStack(error: Error): Error {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (typeof current.stack === 'string') current.stack = sourceMappedStack(current.stack);
  }
  return error;
}
