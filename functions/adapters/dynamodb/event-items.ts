import type { StoredEvent } from '../../domain/webhook.ts';
import { eventDataOf } from './event-data.ts';
import { withoutKeys } from './table-schema.ts';

/** The event in an item, with its outbox due time (the part of `gsi2sk` before the id) while it has one. */
export function toStoredEvent(item: Record<string, unknown>): StoredEvent {
  const event = { ...withoutKeys<StoredEvent>(item), data: eventDataOf(item.data) } as StoredEvent;
  return typeof item.gsi2sk === 'string' ? { ...event, outbox_due: item.gsi2sk.split('#')[0] } : event;
}
