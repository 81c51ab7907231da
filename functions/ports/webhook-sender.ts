import type { AttemptResult } from '../domain/webhook.ts';

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Makes one webhook POST. Never throws for what the endpoint or the network did (refused, timed out, blocked
 * address, any status): that is an `AttemptResult`, which the caller records and decides on.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<AttemptResult>;
}
