import createFetchClient, { type Client, type Middleware } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, paths } from './api-types.js';

/*
 * The merchant SDK (lib/merchant-sdk/README.md): a typed client of the merchant API, its types generated from the
 * OpenAPI document the API serves (docs/openapi.json, `npm run openapi`), and `verifyWebhook` for the signed
 * events we send. Typed end to end: every path, parameter, body and answer is checked against the document.
 */

export type { components, paths };

/** A resource of the API by its schema name, e.g. `Resource<'PaymentLink'>`. */
export type Resource<Name extends keyof components['schemas']> = components['schemas'][Name];

export interface ClientOptions {
  /** The API's base URL, e.g. `https://api.example.com` (the `BaseUrl` output of the stack). */
  baseUrl: string;
  /** `svc_test_...` or `svc_live_...`. */
  apiKey: string;
  /** A `fetch` of your own (tests, proxies); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

/** The typed client: `client.GET('/v1/payment-links/{id}', { params: { path: { id } } })` and so on. */
export type MerchantClient = Client<paths>;

/** A client of the merchant API that sends the key with every request. */
export function createClient(options: ClientOptions): MerchantClient {
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    ...(options.fetch && { fetch: options.fetch }),
  });
  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${options.apiKey}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** Every event type a webhook may carry. */
export type WebhookEventType = Resource<'Event'>['type'];

/** A verified webhook: the Standard Webhooks body, `{ type, timestamp, data }`, and its `webhook-id`. */
export interface WebhookEvent {
  /** The event id (`evt_...`): the same on every retry and redelivery, your key to deduplicate. */
  id: string;
  type: WebhookEventType;
  /** When the event happened (RFC 3339). */
  timestamp: string;
  /** The payment link, the refund (with `payment_link`), or the webhook endpoint, as `GET /v1/events/{id}` shows. */
  data: Resource<'Event'>['data'];
}

/**
 * Verifies a webhook with the `standardwebhooks` library and returns its event: `body` is the raw request body
 * (a string or bytes, before any JSON parsing), `headers` the request's headers, `secret` the `whsec_...` of the
 * endpoint (or of the account, for a link's `webhook_url`). Throws when the signature does not match any of the
 * signatures sent (one per secret during a rotation) or the timestamp is more than five minutes away.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: Record<string, string | string[] | undefined> | Headers,
  secret: string,
): WebhookEvent {
  const plain: Record<string, string> = {};
  const entries = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const payload = new Webhook(secret).verify(text, plain) as Omit<WebhookEvent, 'id'>;
  return { id: plain['webhook-id'] as string, ...payload };
}
