import { EVENT_TYPES } from '../../domain/link-events.ts';
import { SUBSCRIPTION_EVENT_TYPES } from '../../domain/subscription.ts';
import {
  type DeliveryAttempt,
  EVENT_STATUSES,
  type StoredEvent,
  type WebhookEvent,
} from '../../domain/webhook.ts';
import { ENDPOINT_EVENT_TYPES } from '../../domain/webhook-endpoint.ts';
import { eventDataOf } from './event-data.ts';
import {
  arrayOf,
  boolean,
  type Decoder,
  type FieldDecoders,
  itemDecoder,
  mismatch,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
  wholeMap,
} from './item-decoder.ts';

const attempt = () =>
  objectOf<DeliveryAttempt>({
    at: string,
    status_code: nullable(number),
    duration_ms: number,
    error: nullable(string),
  });

const resource = /* @__PURE__ */ wholeMap<WebhookEvent['data']>();

/** The resource the webhook carries: deflated JSON, or a map on events stored before 2026-11-26 (event-data.ts). */
const data: Decoder<WebhookEvent['data']> = (value) => {
  let read: unknown;
  try {
    read = eventDataOf(value);
  } catch {
    return mismatch('deflated JSON', value);
  }
  return resource(read);
};

/**
 * An event's fields, or a delivery's (which copies the event's, docs/data-model.md#items). Every event has the
 * required ones since the first (2026-11-22); `attempt_count` came with the bounded log (2026-11-23) and stays
 * absent on older events, whose `attempts` then holds every attempt (a write's condition tells the two apart);
 * `endpoint_id` and `fanned_out` came with webhook endpoints (2026-11-25); a subscription's event (2026-11-30) holds
 * its `subscription_id` and `webhook_url` besides, kept as stored (not fields every event has). `outbox_due` is not an attribute: it
 * is read from the outbox key (`eventFromItem`).
 */
const eventFields = (): FieldDecoders<StoredEvent> => ({
  id: string,
  type: oneOf([...EVENT_TYPES, ...ENDPOINT_EVENT_TYPES, ...SUBSCRIPTION_EVENT_TYPES]),
  link_id: optional(string),
  account: string,
  mode,
  created_at: string,
  data,
  status: oneOf(EVENT_STATUSES),
  attempts: arrayOf(attempt()),
  attempt_count: optional(number),
  delivery_seq: number,
  round_attempts: number,
  outbox_due: optional(string),
  endpoint_id: optional(string),
  fanned_out: optional(boolean),
});

const decodeEvent = /* @__PURE__ */ itemDecoder('event', eventFields);

/** The event in an item, with its outbox due time (the part of `gsi2sk` before the id) while it has one. */
export function eventFromItem(item: Record<string, unknown>): StoredEvent {
  const event = decodeEvent(item);
  return typeof item.gsi2sk === 'string' ? { ...event, outbox_due: item.gsi2sk.split('#')[0] } : event;
}
