import { Agent, request } from 'node:http';

export interface LoadOptions {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fresh body per request (JSON text), or none. */
  body?: () => string;
  concurrency: number;
  durationMs: number;
  /** Statuses that count as success; anything else is an error. */
  ok: (status: number) => boolean;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Successful requests per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function once(agent: Agent, url: URL, options: LoadOptions): Promise<number> {
  const body = options.body?.();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: options.method,
        headers: {
          ...options.headers,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A closed-loop load: `concurrency` clients over one keep-alive agent, each sending its next request as soon
 * as the previous answer arrives, for `durationMs`. Latency is per request, from send to the end of the answer.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      try {
        const status = await once(agent, url, options);
        if (options.ok(status)) latencies.push(performance.now() - sent);
        else errors++;
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length + errors,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
