import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * An event's `data` (the resource its webhook carries) as the table stores it: its JSON, deflated. A paid
 * link's resource is about 930 bytes of JSON and deflates to about 420, so the event item stays under the
 * 1 KB that DynamoDB bills one write unit for, when it is written and again when its attempt is recorded
 * (docs/data-model.md#event-payloads). Every writer of an event item goes through this function.
 */
export function storedEventData(data: unknown): Uint8Array {
  return deflateRawSync(JSON.stringify(data));
}

/** An event's `data` read back; events stored before 2026-11-26 hold it as a map, which is used as it is. */
export function eventDataOf(stored: unknown): unknown {
  return stored instanceof Uint8Array ? JSON.parse(inflateRawSync(stored).toString('utf8')) : stored;
}
