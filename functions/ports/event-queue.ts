import type { LinkEvent } from '../domain/link-events.ts';

/**
 * What a queue message names: the stored event, the delivery sequence it was sent for (0 at first), and whether
 * the sender knows the event is committed (its link names it: the sender committed the transition, or checked).
 * Delivery then skips reading the link; the outbox sweeper cannot know, so its messages leave it out. The
 * event's account and mode are its tenant, by which the queue keeps one merchant's backlog from delaying
 * another's (docs/webhooks.md, "Queue order").
 */
export type EventReference = Pick<LinkEvent, 'id' | 'account' | 'mode'> & {
  delivery_seq?: number;
  committed?: boolean;
  /** The event's delivery to this webhook endpoint, rather than the event's own (to its link's `webhook_url`). */
  endpoint_id?: string | undefined;
  /** The message carries on the recovery of the endpoint `id` (docs/webhooks.md#recovery), at step `delivery_seq`. */
  recovery?: boolean | undefined;
};

/** Hands a stored event to webhook delivery. At-least-once: a lost send is recovered from the store. */
export interface EventQueue {
  /** `delaySeconds` (at most 900, the SQS limit) postpones the message's first delivery. */
  publish(event: EventReference, options?: { delaySeconds?: number }): Promise<void>;
}
