// Apart from schemas.ts, so that the listing's query schema (list-query.ts) takes these without its URL rules.

export const MAX_METADATA_KEYS = 50;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;
/**
 * Metadata as JSON, in UTF-8 bytes. The per-key limits alone would allow 50 × 540 characters (up to 100 KB in
 * UTF-8), but a webhook body must stay under 20 KB (docs/webhooks.md#the-request) and carries the whole link:
 * 8 KiB of metadata keeps the largest possible link's event under it (test/unit/webhook.test.ts proves it).
 */
export const MAX_METADATA_BYTES = 8 * 1024;
