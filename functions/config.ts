import { currentIndexNames, type IndexNames } from './adapters/dynamodb/table-schema.ts';
import { once } from './once.ts';
import { DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT_WINDOW_SECONDS } from './ports/rate-limiter.ts';
import * as z from './zod.ts';

/**
 * The only module that reads `process.env`. Parsed once per container, on first use at cold start, so a
 * misconfigured deployment fails loudly instead of half-working. Resource names have no defaults. The schema
 * too is built on that first use: zod schemas cost time to build, which would otherwise add to every import.
 */
const booleanString = () =>
  z.pipe(
    z.enum(['true', 'false']),
    z.transform((value) => value === 'true'),
  );
const nonEmpty = () => z.string().check(z.minLength(1));
/** The longest BASE_URL or CHECKOUT_BASE: it bounds every `checkout_url` the API returns. */
export const MAX_BASE_URL_LENGTH = 1024;
const baseUrl = () =>
  z.pipe(
    z.url().check(z.maxLength(MAX_BASE_URL_LENGTH)),
    z.transform((url) => url.replace(/\/+$/, '')),
  );
const integer = (min: number, max: number, fallback: number) =>
  z._default(z.pipe(z.coerce.number(), z.int().check(z.minimum(min), z.maximum(max))), fallback);

const configSchema = () =>
  z.object({
    TABLE_NAME: nonEmpty(),
    /** Public base of the checkout pages, without trailing slash: `checkout_url` = `${CHECKOUT_BASE}/${id}`. */
    CHECKOUT_BASE: baseUrl(),
    /** Public base of the API itself (PSP return and notification addresses are built on it). */
    BASE_URL: baseUrl(),
    /** The webhook event queue (only read by functions that send events). */
    EVENTS_QUEUE_URL: nonEmpty(),
    /** Where webhook delivery keeps events that exhausted their retries (the events queue's dead-letter queue). */
    EVENTS_DEAD_LETTER_QUEUE_URL: nonEmpty(),
    /** Accept and deliver to loopback/private targets: the local stack only. */
    ALLOW_PRIVATE_TARGETS: z._default(booleanString(), false),
    API_KEY_CACHE_TTL_SECONDS: integer(0, 60, 60),
    /** The sandbox PSP's signing secret: its name or ARN in the secret store (never the value). */
    SANDBOX_SECRET_NAME: nonEmpty(),
    /** Prefix of PSP credential secrets: a connection's are `<prefix>connections/<id>` (docs/orchestration.md). */
    PSP_SECRET_PREFIX: nonEmpty(),
    /**
     * The key of the HMAC that derives a link's id from its creation's `Idempotency-Key` (docs/security.md#link-ids):
     * a value, not a name, resolved into the environment at deploy time, and never rotated while a key may be
     * retried (24 hours).
     */
    LINK_ID_SECRET: z.string().check(z.minLength(32)),
    /**
     * Secrets are re-read from Secrets Manager at most this often per warm container: at most 5 minutes, so
     * rotated PSP credentials are in use within that time (docs/orchestration.md#rotating-credentials).
     */
    SECRETS_CACHE_SECONDS: integer(0, 300, 300),
    /** The KMS key that seals webhook signing secrets (only the delivery function may decrypt with it). */
    SIGNING_KEY_ID: z.optional(nonEmpty()),
    /** Local stack only: signing secrets are sealed with the key in this file instead of KMS. */
    LOCAL_SIGNING_KEY_FILE: z.optional(nonEmpty()),
    /** Local stack only: secrets come from this JSON file instead of Secrets Manager. */
    LOCAL_SECRETS_FILE: z.optional(nonEmpty()),
    /**
     * The console's Cognito user pool, its app client and the base URL of its hosted sign-in (deployed stacks);
     * without them the console signs in with one-time links only (docs/console.md#signing-in).
     */
    CONSOLE_USER_POOL_ID: z.optional(nonEmpty()),
    CONSOLE_CLIENT_ID: z.optional(nonEmpty()),
    CONSOLE_AUTH_DOMAIN: z.optional(baseUrl()),
    /**
     * The CloudFront front's origin secret, set only when the front is deployed: a request carrying it came
     * through the front, whose `CloudFront-Viewer-Address` names the client (docs/security.md#the-client-behind-cloudfront).
     */
    EDGE_ORIGIN_SECRET: z.optional(z.string().check(z.minLength(32))),
    /**
     * Local stack only: the webhook retry schedule, waits in ms separated by commas, instead of the domain's
     * (docs/webhooks.md#delivery-and-retries), so that a run under injected faults settles in seconds.
     */
    WEBHOOK_RETRY_SCHEDULE_MS: z.optional(
      z.pipe(
        z.string().check(z.regex(/^\d+(,\d+)*$/)),
        z.transform((list) => list.split(',').map(Number)),
      ),
    ),
    /**
     * The indexes to query for listings, and for the events feed and the sweepers' lists: `listings` and
     * `timelines`, or the one each replaced while a deployed table's migration fills it
     * (docs/operations.md#index-migrations).
     */
    LISTINGS_INDEX: z._default(nonEmpty(), currentIndexNames.listings),
    TIMELINES_INDEX: z._default(nonEmpty(), currentIndexNames.timelines),
    /** Requests each (account, mode) may make per window (docs/api.md#rate-limits). */
    RATE_LIMIT_REQUESTS: integer(1, Number.MAX_SAFE_INTEGER, DEFAULT_RATE_LIMIT.requests),
    RATE_LIMIT_WINDOW_SECONDS: integer(1, MAX_RATE_LIMIT_WINDOW_SECONDS, DEFAULT_RATE_LIMIT.windowSeconds),
    /** How often a container flushes its outcome counts, and how stale its reads of them may be (ms). */
    OUTCOME_FLUSH_MS: integer(0, 60_000, 5_000),
    OUTCOME_CACHE_MS: integer(0, 10_000, 10_000),
  });

export type Config = z.infer<ReturnType<typeof configSchema>>;

export const config = /* @__PURE__ */ once((): Config => {
  const parsed = configSchema().safeParse(process.env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
});

/**
 * Tests only: `<ID>_API_URL` sends the calls of the PSP of that id to a server that speaks its API instead of the
 * PSP itself (`ACME_PAY_API_URL` for a PSP of id `acme_pay`); each adapter says what it
 * does with it. Read here, where every setting is, for every PSP alike; a value that is not a URL fails the cold
 * start as any other setting does.
 */
export const pspApiUrls = /* @__PURE__ */ once((): Readonly<Record<string, string>> => {
  const urls: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    const id = /^([A-Z][A-Z0-9_]*)_API_URL$/.exec(name)?.[1];
    if (!id || value === undefined) continue;
    const parsed = z.safeParse(z.url(), value);
    if (!parsed.success) throw new Error(`Invalid configuration: ${name} must be a URL.`);
    urls[id.toLowerCase()] = parsed.data;
  }
  return urls;
});

/** The names of the settings above: the stack may give a function no other (test/infra/stack.test.ts). */
export const configSettingNames = (): string[] => Object.keys(configSchema().shape);

/** The indexes the functions query (see `LISTINGS_INDEX` and `TIMELINES_INDEX`). */
export const indexNames = (): IndexNames => ({
  listings: config().LISTINGS_INDEX,
  timelines: config().TIMELINES_INDEX,
});
