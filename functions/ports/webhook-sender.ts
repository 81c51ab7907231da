import type { Mode } from '../domain/principal.ts';
import type { AttemptResult } from '../domain/webhook.ts';

export interface WebhookRequest {
  /** The event's mode: a live event goes to public addresses only, whatever the deployment allows. */
  mode: Mode;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** A deadline shorter than the sender's own (a test event's), in ms. */
  timeoutMs?: number | undefined;
}

/**
 * Makes one webhook POST. Never throws for what the endpoint or the network did (refused, timed out, blocked
 * address, any status): that is an `AttemptResult`, which the caller records and decides on.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptResult>;
}
