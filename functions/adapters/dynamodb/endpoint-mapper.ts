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
const ENDPOINT_FIELDS: FieldDecoders<WebhookEndpoint> = {
  id: string,
  account: string,
  mode,
  url: string,
  enabled_events: arrayOf(string),
  description: nullable(string),
  status: oneOf(ENDPOINT_STATUSES),
  created_at: string,
  updated_at: string,
};

/** Its signing secrets, sealed; the previous one only during a rotation's overlap. */
const SECRET_FIELDS: FieldDecoders<EndpointSecrets> = {
  secret: string,
  previous_secret: optional(string),
  previous_until: optional(string),
};

/** One attempt in the health window: whether it succeeded, and how long it took. */
const attempt: Decoder<[0 | 1, number]> = (value) => {
  if (!Array.isArray(value) || value.length !== 2 || (value[0] !== 0 && value[0] !== 1)) {
    return mismatch('[0 or 1, a duration]', value);
  }
  return [value[0], number(value[1])];
};

/** Its latest attempts (none until the first, and again once re-enabled: the stats are removed then). */
const STATS_FIELDS: FieldDecoders<EndpointStats> = {
  window: withDefault(arrayOf(attempt), () => []),
  failing_since: optional(string),
};

/** What the item holds besides the endpoint: the records below, and delivery's own bookkeeping. */
const NOT_THE_ENDPOINT = [
  ...Object.keys(SECRET_FIELDS),
  ...Object.keys(STATS_FIELDS),
  'kind',
  'disabled_reason',
  'test_until',
];

const decodeEndpoint = itemDecoder('webhook endpoint', ENDPOINT_FIELDS, { omit: NOT_THE_ENDPOINT });
const decodeSecrets = itemDecoder('webhook endpoint', SECRET_FIELDS, { keep: 'drop' });
const decodeStats = itemDecoder('webhook endpoint', STATS_FIELDS, { keep: 'drop' });

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
