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
 * Frames in files without a map beside them (the TypeScript sources under `npm start` and the tests, Node's
 * own modules) are left as they are.
 */
const maps = new Map<string, SourceMap | undefined>();

function sourceMapOf(file: string): SourceMap | undefined {
  if (!maps.has(file)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = undefined; // no map, or an unreadable one: the frame keeps its bundle position
    }
    maps.set(file, map);
  }
  return maps.get(file);
}

/** `file:///var/task/index.mjs:1:2345` or `/var/task/index.mjs:1:2345`, as V8 prints a frame's position. */
const BUNDLE_POSITION = /(file:\/\/[^\s()]+?\.[cm]?js|\/[^\s()]+?\.[cm]?js):(\d+):(\d+)/g;

/** esbuild names sources relative to the bundle's folder; the part after the `../` is the project path. */
const projectPath = (source: string) => source.replace(/^(\.\.\/)+/, '');

export function sourceMappedStack(stack: string): string {
  return stack.replace(BUNDLE_POSITION, (position, location: string, line: string, column: string) => {
    const file = location.startsWith('file:') ? fileURLToPath(location) : location;
    const origin = sourceMapOf(file)?.findOrigin(Number(line), Number(column));
    if (!origin || !('fileName' in origin)) return position;
    return `${projectPath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}

/** Maps the stacks of an error and of its causes in place, so that every formatter of the error sees them. */
export function mapErrorStack(error: Error): Error {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (typeof current.stack === 'string') current.stack = sourceMappedStack(current.stack);
  }
  return error;
}
