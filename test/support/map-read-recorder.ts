/**
 * Loaded with `--import` (only: importing it patches `node:fs`) into a function's container by test/integration/bundled-functions.test.ts: reports on
 * stderr whether Node's own source-map support is on, and every read of a `.map` file through `node:fs`, so
 * the test can tell when (and whether) a bundle's source map is read.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { MAP_READ_MARKER as MARKER } from './map-reads.ts';

process.stderr.write(`${MARKER} node-source-maps=${process.sourceMapsEnabled}\n`);

const report = (path: unknown) => {
  if (String(path).endsWith('.map')) process.stderr.write(`${MARKER} read ${String(path)}\n`);
};
const watched = fs as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const name of ['readFileSync', 'openSync', 'readFile', 'open', 'createReadStream']) {
  const original = watched[name] as (...args: unknown[]) => unknown;
  watched[name] = function (this: unknown, path: unknown, ...rest: unknown[]) {
    report(path);
    return original.call(this, path, ...rest);
  };
}
const promises = fs.promises as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const name of ['readFile', 'open']) {
  const original = promises[name] as (...args: unknown[]) => unknown;
  promises[name] = function (this: unknown, path: unknown, ...rest: unknown[]) {
    report(path);
    return original.call(this, path, ...rest);
  };
}
syncBuiltinESMExports();
