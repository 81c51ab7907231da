import { fork } from 'node:child_process';
import { join } from 'node:path';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The JSON body of every request, or none. */
  body?: string;
  concurrency: number;
  durationMs: number;
  /** Statuses that count as success; anything else is an error. */
  okStatuses: readonly number[];
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Successful requests per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time the load generator spent per successful request (its own process: user + system). */
  generatorCpuMsPerRequest: number;
}

/**
 * A closed-loop load from autocannon in a process of its own (test/bench/load-process.ts): `concurrency`
 * keep-alive connections, each sending its next request as soon as the previous answer arrives, for
 * `durationMs`. Its own process, so the generator competes with the server only for the machine's cores (as an
 * external tool like wrk does), never for an event loop; it reports its CPU per request, so that a reader sees
 * when its share of a busy machine is large enough to move a ratio (docs/performance.md).
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(join(import.meta.dirname, 'load-process.ts'), [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message: { result?: LoadResult; error?: string }) => {
      if (message.result) resolve(message.result);
      else reject(new Error(`load generator: ${message.error}`));
      child.disconnect();
    });
    child.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
    child.send(options);
  });
}

/** Rounds of one target as one figure: requests over total time, and the median round's latencies. */
export function combineRounds(rounds: LoadResult[]) {
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  return {
    rps:
      rounds.reduce((sum, run) => sum + run.requests - run.errors, 0) /
      rounds.reduce((sum, run) => sum + run.seconds, 0),
    errors: rounds.reduce((sum, run) => sum + run.errors, 0),
    p50Ms: median(rounds.map((run) => run.p50Ms)),
    p99Ms: median(rounds.map((run) => run.p99Ms)),
    generatorCpuMsPerRequest: median(rounds.map((run) => run.generatorCpuMsPerRequest)),
  };
}
