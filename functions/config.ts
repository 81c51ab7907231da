import * as z from './zod.ts';

/**
 * The only module that reads `process.env`. Parsed once per container, on first use at cold start, so a
 * misconfigured deployment fails loudly instead of half-working. Resource names have no defaults.
 */
const booleanString = z.pipe(
  z.enum(['true', 'false']),
  z.transform((value) => value === 'true'),
);

const ConfigSchema = z.object({
  TABLE_NAME: z.string().check(z.minLength(1)),
  /** Public base of the checkout pages, without trailing slash: `checkout_url` = `${CHECKOUT_BASE}/${id}`. */
  CHECKOUT_BASE: z.pipe(
    z.url(),
    z.transform((url) => url.replace(/\/+$/, '')),
  ),
  /** Public base of the API itself (PSP return and notification addresses are built on it). */
  BASE_URL: z.pipe(
    z.url(),
    z.transform((url) => url.replace(/\/+$/, '')),
  ),
  /** The webhook event queue (only read by functions that send events). */
  EVENTS_QUEUE_URL: z.string().check(z.minLength(1)),
  /** Accept and deliver to loopback/private targets: the local stack only. */
  ALLOW_PRIVATE_TARGETS: z._default(booleanString, false),
  API_KEY_CACHE_TTL_SECONDS: z._default(
    z.pipe(z.coerce.number(), z.int().check(z.minimum(0), z.maximum(60))),
    60,
  ),
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
