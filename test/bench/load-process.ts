/** The load generator's process (see `runLoad` in test/bench/load.ts): one load per process, over IPC. */
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './load.ts';

process.once('message', async (options: LoadOptions) => {
  try {
    const cpu = process.cpuUsage();
    const result = await autocannon({
      url: options.url,
      method: options.method,
      headers: {
        ...options.headers,
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        // autocannon replaces `[<id>]` with an id of its own in each request.
        ...(options.freshIdempotencyKey && { 'idempotency-key': '[<id>]' }),
      },
      idReplacement: options.freshIdempotencyKey ?? false,
      body: options.body,
      connections: options.concurrency,
      duration: options.durationMs / 1000,
    });
    const used = process.cpuUsage(cpu);
    const byStatus = (result.statusCodeStats ?? {}) as Record<string, { count?: number }>;
    const requests = Object.values(byStatus).reduce((sum, { count }) => sum + Number(count ?? 0), 0);
    const ok = options.okStatuses.reduce(
      (sum, status) => sum + Number(byStatus[String(status)]?.count ?? 0),
      0,
    );
    const seconds = result.duration;
    const reply: LoadResult = {
      requests: requests + result.errors,
      errors: requests - ok + result.errors,
      seconds,
      rps: ok / seconds,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      generatorCpuMsPerRequest: (used.user + used.system) / 1000 / Math.max(1, requests),
    };
    process.send?.({ result: reply });
  } catch (error) {
    process.send?.({ error: (error as Error).stack ?? String(error) });
  }
});
