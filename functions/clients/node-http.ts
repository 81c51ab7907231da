import type * as NodeHttp from 'node:http';

/**
 * `node:http` as the Lambda bundles see it: lib/bundling/lambda-bundling.ts aliases every import of `http` and
 * `node:http` (ours, request-filtering-agent's, a PSP SDK's) to this module. An ES module import of a Node
 * built-in builds the module's namespace from every export, and since Node 22 `node:http` has lazy getters
 * (`WebSocket`, `CloseEvent`, `MessageEvent`) that load undici, which loads HTTP/2, worker_threads and
 * perf_hooks: about 40 ms of CPU at every cold start of deliver-webhook, for names nothing reads
 * (docs/performance.md#cold-start-no-psp-sdk-before-it-is-needed). `process.getBuiltinModule` returns the
 * CommonJS object, whose getters run only when read. Outside a bundle (tests, the local stack) imports of
 * `node:http` are Node's own.
 */
const http = process.getBuiltinModule('node:http') as typeof NodeHttp;

export default http;
export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  request,
  setMaxIdleHTTPParsers,
  validateHeaderName,
  validateHeaderValue,
} = http;
