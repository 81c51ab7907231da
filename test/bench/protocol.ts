import type { ServerInfo } from './bench.ts';

/** Messages between the benchmark (test/bench/run.ts) and its server process (test/bench/bench-server.ts). */
export type BenchRequest =
  | { cmd: 'serve'; id: number; row: string; input: unknown }
  | { cmd: 'cpu'; id: number }
  | { cmd: 'stop' };

export type BenchReply =
  | ({ type: 'ready' } & ServerInfo)
  | { type: 'reply'; id: number; result: unknown }
  | { type: 'error'; id: number; message: string };

/** What a browser sends on a top-level navigation: the checkout page then treats the request as a buyer's. */
export const NAVIGATION_HEADERS = {
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  'user-agent': 'Mozilla/5.0 (bench)',
};
