import { Webhook } from 'standardwebhooks';

// Apart from functions/domain/webhook.ts on purpose: `standardwebhooks` is CommonJS, which bundlers cannot
// tree-shake, so only the delivery function, which signs, imports it.

/**
 * Headers of one attempt: `webhook-id` is the event id (stable across retries, the merchant's dedup key);
 * timestamp and signature are fresh per attempt. Signed with each of the (account, mode)'s `whsec_` secrets:
 * right after a rotation the header carries a signature by the new and by the previous secret, space-separated
 * as Standard Webhooks specifies, so receivers still holding either secret verify it.
 */
export function signedWebhookHeaders(
  secrets: readonly string[],
  eventId: string,
  body: string,
  at: Date,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payment-links-webhooks/1',
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
