/**
 * The performance budgets `npm test` and the benchmark share, each a ratio to a baseline measured in the same
 * run, so they hold on any machine. `npm test` enforces the bundle one (it times nothing). A row of its own may
 * keep its budget in its file (test/bench/rows/).
 */
export const budgets = {
  /** create-link requests per second through the local stack / a bare server doing one PutItem. */
  createLinkThroughput: 0.8,
  /**
   * Each Lambda bundle, gzipped, against the bare bundle of the SDK clients it carries, twice
   * (docs/decisions.md#bundle-budget): what its cold start loads (index.mjs and its static chunks) / the bare
   * asset without the PSP SDKs' chunks (`coldStartRatio`), and the whole asset as shipped / the bare asset. The
   * minified size was a stand-in for parse cost; the cold-import rows measure that cost itself, and a function
   * whose payload is data (get-openapi serves the OpenAPI document) would fail a minified ratio for text that
   * costs nothing to run.
   */
  bundleSize: 1.3,
  /**
   * The console's bundle, by the same rules: its asset also ships every page's words in five languages and the
   * checkout's words for its preview (about 90 KB of text minified, which no SDK baseline has; each language a
   * chunk of its own), and it serves the merchant's staff, on no buyer's or API caller's path
   * (docs/decisions.md#bundle-budget).
   */
  consoleBundleSize: 1.35,
  /** Each handler bundle's cold import (CPU) / importing the bare bundle of the SDK clients it carries. */
  coldImport: 1.15,
  /** The same, for a function that carries more than one PSP SDK (orchestration): the heaviest. */
  coldImportSeveralPsps: 1.25,
  /**
   * A function that can reach a PSP: its cold import (CPU) / the same function built with every PSP SDK left out.
   * Each SDK is a chunk loaded by its first call, so a cold start parses none of them.
   */
  coldImportPspSdks: 1.1,
  /**
   * Loading a PSP's chunks on its first call (CPU, after index.mjs) / the same in the bare bundle of the SDKs the
   * function carries: the first call to a provider adds that provider's SDK and nothing else.
   */
  firstPspCall: 1.1,
  /**
   * 429s per second to a tenant whose window is spent / the create-link ceiling (one PutItem): a refusal costs
   * no store write, so it must be at least as cheap as the cheapest request that writes.
   */
  rejectedThroughput: 1.0,
  /**
   * Webhooks delivered per second through SQS and deliver-webhook / the recording floor (one conditional
   * UpdateItem per event on the same store: every attempt is recorded), with none lost.
   */
  webhookThroughput: 0.5,
  /** A healthy endpoint's 20 webhooks queued behind 600 of a hanging endpoint / the same 20 alone (time). */
  webhookIsolation: 2,
} as const;

/** What a bundle budget judges: the whole asset as shipped, or what a cold start loads. */
export type BundleMeasure = 'asShipped' | 'coldStart';

/**
 * The functions the merges of issues 48-53 (ten PSPs, subscriptions, the console's second round, decline classes,
 * then the console's search, the API's audit, payouts and outage health) took over their budget, each held to what
 * it measured on 2026-11-29 so that it cannot grow further: a ratchet, not a new budget. Each leaves this list when
 * the work docs/performance.md#over-budget names brings it back under; empty is the goal.
 */
export const HELD_OVER_BUDGET: Readonly<Record<string, Partial<Record<BundleMeasure, number>>>> = {
  'create-payment-link': { asShipped: 1.315 },
  'deliver-webhook': { asShipped: 1.31 },
  'erase-payment-buyer': { asShipped: 1.31 },
  'list-account-payments': { asShipped: 1.315 },
  'list-account-refunds': { asShipped: 1.305 },
  'list-subscriptions': { asShipped: 1.315 },
  'put-routing': { asShipped: 1.316 },
  'sandbox-checkout': { asShipped: 1.32 },
  'update-subscription': { asShipped: 1.305 },
};

/** The bundle budget of one function: `bundleSize`, or the console's own. */
export const normalBundleBudget = (bundleName: string): number =>
  bundleName === 'console' ? budgets.consoleBundleSize : budgets.bundleSize;

/** What one function's bundle is judged by: its budget, or the ceiling it is held to. */
export const bundleSizeBudget = (bundleName: string, measure: BundleMeasure): number =>
  HELD_OVER_BUDGET[bundleName]?.[measure] ?? normalBundleBudget(bundleName);
