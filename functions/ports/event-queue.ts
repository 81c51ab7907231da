import type { LinkEvent } from '../domain/payment-link.ts';

/** What a queue message names: the stored event, and the delivery sequence it was sent for (0 at first). */
export type EventReference = Pick<LinkEvent, 'id' | 'mode'> & { delivery_seq?: number };

/** Hands a stored event to webhook delivery. At-least-once: a lost send is recovered from the store. */
export interface EventQueue {
  /** `delaySeconds` (at most 900, the SQS limit) postpones the message's first delivery. */
  publish(event: EventReference, options?: { delaySeconds?: number }): Promise<void>;
}
