/** Messages between the benchmark (test/bench/run.ts) and its server process (test/bench/bench-server.ts). */
export type BenchRequest =
  | { cmd: 'webhooks'; count: number; concurrency: number }
  | { cmd: 'checkout' }
  | { cmd: 'rateLimited' }
  | { cmd: 'stop' };

export type WebhookBenchResult =
  | { available: false }
  | {
      available: true;
      count: number;
      ceiling: { rps: number; lost: number; invalid: number };
      /** One write per event, the least any delivery that records its attempts does: no queue, no HTTP. */
      recordingFloor: { rps: number };
      delivery: {
        rps: number;
        lost: number;
        invalid: number;
        /** Events the queue refused (SendMessage failed): lost before delivery could see them. */
        sendErrors: number;
        firstSendError: string | undefined;
      };
    };

export type BenchReply =
  | { type: 'ready'; createUrl: string; ceilingUrl: string; authorization: string; createBody: string }
  | { type: 'webhooks'; result: WebhookBenchResult }
  | { type: 'checkout'; url: string | undefined }
  /** A merchant-API URL and a key whose rate-limit windows are all spent for the next half hour. */
  | { type: 'rateLimited'; url: string; authorization: string }
  | { type: 'error'; message: string };

/** What a browser sends on a top-level navigation: the checkout page then treats the request as a buyer's. */
export const NAVIGATION_HEADERS = {
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
  'user-agent': 'Mozilla/5.0 (bench)',
};
