import {
  ENDPOINT_STATUSES,
  type EndpointSecrets,
  type EndpointStats,
  type WebhookEndpoint,
} from '../../domain/webhook-endpoint.ts';
import type { StoredWebhookEndpoint } from '../../ports/webhook-endpoints.ts';
import {
  arrayOf,
  type Decoder,
  type FieldDecoders,
  itemDecoder,
  mismatch,
  mode,
  nullable,
  number,
  oneOf,
  optional,
  string,
  withDefault,
} from './item-decoder.ts';

/** An endpoint's fields, every one of them stored since endpoints exist (2026-11-25). */
const endpointFields = (): FieldDecoders<WebhookEndpoint> => ({
  id: string,
  account: string,
  mode,
  url: string,
  enabled_events: arrayOf(string),
  description: nullable(string),
  status: oneOf(ENDPOINT_STATUSES),
  created_at: string,
  updated_at: string,
});

/** Its signing secrets, sealed; the previous one only during a rotation's overlap. */
const secretFields = (): FieldDecoders<EndpointSecrets> => ({
  secret: string,
  previous_secret: optional(string),
  previous_until: optional(string),
});

/** One attempt in the health window: whether it succeeded, and how long it took. */
const attempt: Decoder<[0 | 1, number]> = (value) => {
  if (!Array.isArray(value) || value.length !== 2 || (value[0] !== 0 && value[0] !== 1)) {
    return mismatch('[0 or 1, a duration]', value);
  }
  return [value[0], number(value[1])];
};

/** Its latest attempts (none until the first, and again once re-enabled: the stats are removed then). */
const statsFields = (): FieldDecoders<EndpointStats> => ({
  window: withDefault(arrayOf(attempt), () => []),
  failing_since: optional(string),
});

const decodeEndpoint = /* @__PURE__ */ itemDecoder('webhook endpoint', endpointFields, {
  // What the item holds besides the endpoint: the records below, and delivery's own bookkeeping.
  omit: [
    'secret',
    'previous_secret',
    'previous_until',
    'window',
    'failing_since',
    'kind',
    'disabled_reason',
    'test_until',
  ],
});
const decodeSecrets = /* @__PURE__ */ itemDecoder('webhook endpoint', secretFields, { keep: 'drop' });
const decodeStats = /* @__PURE__ */ itemDecoder('webhook endpoint', statsFields, { keep: 'drop' });

/** A stored endpoint item: the endpoint, its sealed secrets and its health window. */
export function endpointFromItem(item: Record<string, unknown>): StoredWebhookEndpoint {
  const { secret, previous_secret, previous_until } = decodeSecrets(item);
  // A previous secret counts only with the end of its overlap (both are written and removed together).
  const sealed: EndpointSecrets =
    previous_secret !== undefined && previous_until !== undefined
      ? { secret, previous_secret, previous_until }
      : { secret };
  return { ...decodeEndpoint(item), sealed, stats: decodeStats(item) };
}
