import { execFile, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

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
  /** Sends an `Idempotency-Key` header unique to each request, as a merchant's retry-safe client does. */
  freshIdempotencyKey?: boolean;
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
 * `durationMs`. Its own process, so the generator competes with the server only for the machine's cores (as
 * an external tool like wrk does), never for an event loop; it reports its CPU per request, so that a reader
 * sees when its share of a busy machine is large enough to move a ratio (docs/performance.md).
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

/**
 * The same load from wrk (`npm run bench -- --generator wrk`, when wrk is installed): an external generator
 * in C, two threads, `concurrency` connections. The check an outside reviewer runs, in the benchmark's ABBA
 * rounds. The script counts answers by status (wrk itself only counts non-2xx/3xx), so `okStatuses` decides
 * success as for autocannon. Its CPU comes from the shell's `times` (user and system time of its finished
 * children).
 */
/** wrk's threads: two, as the external check of issue 39 runs it (`wrk -t2 -c16`). */
const WRK_THREADS = 2;

export async function runWrk(options: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
  try {
    const script = join(dir, 'request.lua');
    const headers = {
      ...options.headers,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    writeFileSync(
      script,
      [
        `wrk.method = ${JSON.stringify(options.method)}`,
        ...(options.body === undefined ? [] : [`wrk.body = ${JSON.stringify(options.body)}`]),
        ...Object.entries(headers).map(
          ([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`,
        ),
        ...(options.freshIdempotencyKey
          ? [
              // Unique across runs (a random id of this run), threads (numbered in `setup`) and requests.
              `local run_id = ${JSON.stringify(randomUUID())}`,
              'local sent = 0',
              'request = function()',
              '  sent = sent + 1',
              '  wrk.headers["idempotency-key"] = run_id .. "-" .. thread_number .. "-" .. sent',
              '  return wrk.format()',
              'end',
            ]
          : []),
        // The thread counts statuses; `done` (in wrk's main script) reads them back from the thread.
        'statuses = {}',
        'response = function(status) statuses[status] = (statuses[status] or 0) + 1 end',
        'local threads = {}',
        'setup = function(thread) table.insert(threads, thread); thread:set("thread_number", #threads) end',
        'done = function()',
        '  for _, thread in ipairs(threads) do',
        '    for status, count in pairs(thread:get("statuses")) do',
        '      io.write("status ", status, " ", count, "\\n")',
        '    end',
        '  end',
        'end',
      ].join('\n'),
    );
    const seconds = Math.max(1, Math.round(options.durationMs / 1000));
    const wrk = `wrk -t${WRK_THREADS} -c${options.concurrency} -d${seconds}s --latency -s '${script}' '${options.url}'`;
    const command = `${wrk}; times`;
    const { stdout } = await promisify(execFile)('bash', ['-c', command]);
    const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? 0);
    const requests = number(/(\d+) requests in/);
    const ok = [...stdout.matchAll(/^status (\d+) (\d+)$/gm)]
      .filter(([, status]) => options.okStatuses.includes(Number(status)))
      .reduce((sum, [, , count]) => sum + Number(count), 0);
    const socketErrors = [...stdout.matchAll(/(?:connect|read|write|timeout) (\d+)/g)].reduce(
      (sum, [, n]) => sum + Number(n),
      0,
    );
    const errors = requests - ok + socketErrors;
    const elapsed = Number(/requests in ([\d.]+)s/.exec(stdout)?.[1] ?? seconds);
    // `times` prints the shell's own line, then its children's: `0m0.412s 0m1.230s`.
    const [, userMin, userSec, sysMin, sysSec] = /\n(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(stdout) ?? [];
    const cpuMs = ((Number(userMin) + Number(sysMin)) * 60 + Number(userSec) + Number(sysSec)) * 1000;
    // As autocannon's are counted (test/bench/load-process.ts): failed sockets are requests and errors.
    return {
      requests: requests + socketErrors,
      errors,
      seconds: elapsed,
      rps: ok / elapsed,
      p50Ms: latencyMs(stdout, '50%'),
      p99Ms: latencyMs(stdout, '99%'),
      generatorCpuMsPerRequest: cpuMs / Math.max(1, requests),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A percentile of wrk's `--latency` table (`50%  12.34ms`), in milliseconds. */
function latencyMs(output: string, percentile: string): number {
  const [, value, unit] = new RegExp(`${percentile}\\s+([\\d.]+)(us|ms|s)`).exec(output) ?? [];
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit as 'us' | 'ms' | 's'] ?? Number.NaN);
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
