import type { LinkEvent } from '../domain/payment-link.ts';

/** Hands a stored event to webhook delivery. At-least-once: a lost send is recovered from the store. */
export interface EventQueue {
  publish(event: Pick<LinkEvent, 'id' | 'mode'>): Promise<void>;
}
