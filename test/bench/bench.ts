import type { LocalStack } from '../../lib/local/local-stack.ts';
import type { Bundle } from './bundles.ts';
import type { LoadOptions, LoadResult } from './load.ts';

/**
 * One file of test/bench/rows/ is one measurement: it adds rows to the table. Files run in name order (a
 * number prefix orders them), each on its own, so adding a measurement is adding a file (docs/performance.md).
 */
export interface BenchRow<Input = unknown, Output = unknown> {
  /** Runs in the benchmark's process: drives the load, reads what `serve` answers, reports rows. */
  measure(bench: Bench): Promise<void>;
  /**
   * Runs in the server process, beside the local stack (test/bench/bench-server.ts), when `measure` calls
   * `bench.serve(input)`: prepares targets (data, extra servers) and measures what must run there.
   */
  serve?(server: BenchServer, input: Input): Promise<Output>;
}

export interface Plan {
  quick: boolean;
  /** Clients of the HTTP measurements. */
  concurrency: number;
  warmupMs: number;
  roundMs: number;
  rounds: number;
  importRounds: number;
  webhooks: number;
}

export interface Budget {
  max?: number;
  min?: number;
}

export interface Bench {
  plan: Plan;
  /** Adds a line to the table; `ratio` is judged against `budget` when both are given. */
  row(line: {
    measure: string;
    subject: string;
    value: string;
    baseline: string;
    ratio?: number;
    budget?: Budget;
  }): void;
  /** Keeps figures for `--json`. */
  record(key: string, value: unknown): void;
  /** The Lambda bundles and their baselines, built once per run (test/bench/bundles.ts). */
  bundles(): Promise<Bundle[]>;
  /** Calls this row's `serve` in the server process (started on first use) and returns its answer. */
  serve<Output>(input?: unknown): Promise<Output>;
  /** The local stack in the server process, with a test key. */
  server(): Promise<ServerInfo>;
  /** A closed-loop HTTP load from a process of its own (test/bench/load.ts). */
  load(options: Omit<LoadOptions, 'concurrency'> & { concurrency?: number }): Promise<LoadResult>;
  /** CPU time (ms) the server process has used so far. */
  serverCpuMs(): Promise<number>;
}

export interface ServerInfo {
  baseUrl: string;
  /** `Bearer <key>` of the bench account's test key. */
  authorization: string;
  webhookSecret: string;
  /** What a merchant typically sends to create a link: every field but `expires_at`. */
  createBody: string;
}

export interface BenchServer extends ServerInfo {
  stack: LocalStack;
  account: string;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
