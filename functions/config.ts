import { z } from 'zod';
import { DEFAULT_RATE_LIMIT } from './ports/rate-limiter.ts';

/**
 * The only module that reads `process.env`. Parsed once per container, on first use at cold start, so a
 * misconfigured deployment fails loudly instead of half-working. Resource names have no defaults.
 */
const booleanString = z.enum(['true', 'false']).transform((value) => value === 'true');

const ConfigSchema = z.object({
  TABLE_NAME: z.string().min(1),
  /** Public base of the checkout pages, without trailing slash: `checkout_url` = `${CHECKOUT_BASE}/${id}`. */
  CHECKOUT_BASE: z.url().transform((url) => url.replace(/\/+$/, '')),
  /** Public base of the API itself (PSP return and notification addresses are built on it). */
  BASE_URL: z.url().transform((url) => url.replace(/\/+$/, '')),
  /** The webhook event queue (only read by functions that send events). */
  EVENTS_QUEUE_URL: z.string().min(1),
  /** Accept and deliver to loopback/private targets: the local stack only. */
  ALLOW_PRIVATE_TARGETS: booleanString.default(false),
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(60).default(60),
  /** Where webhook delivery keeps events that exhausted their retries (the events queue's dead-letter queue). */
  EVENTS_DEAD_LETTER_QUEUE_URL: z.string().min(1),
  /** The sandbox PSP's signing secret: its name or ARN in the secret store (never the value). */
  SANDBOX_SECRET_NAME: z.string().min(1),
  /** Prefix of PSP credential secrets: Stripe's are `<prefix>stripe/<account>/<mode>` (docs/checkout.md). */
  PSP_SECRET_PREFIX: z.string().min(1),
  /** Secrets are re-read from Secrets Manager at most this often per warm container. */
  SECRETS_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(900),
  /** Local stack only: secrets come from this JSON file instead of Secrets Manager. */
  LOCAL_SECRETS_FILE: z.string().min(1).optional(),
  /** Tests only: send Stripe API calls to this Stripe-speaking server instead of api.stripe.com. */
  STRIPE_API_URL: z.url().optional(),
  /** Requests each (account, mode) may make per window (docs/api.md#rate-limits). */
  RATE_LIMIT_REQUESTS: z.coerce.number().int().min(1).default(DEFAULT_RATE_LIMIT.requests),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(DEFAULT_RATE_LIMIT.windowSeconds),
});

export type Config = z.infer<typeof ConfigSchema>;

let cached: Config | undefined;

export function config(): Config {
  if (!cached) {
    const parsed = ConfigSchema.safeParse(process.env);
    if (!parsed.success) {
      throw new Error(`Invalid configuration: ${z.prettifyError(parsed.error)}`);
    }
    cached = parsed.data;
  }
  return cached;
}
