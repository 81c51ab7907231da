import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createClient, type MerchantClient, verifyWebhook } from '../../lib/merchant-sdk/index.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';
import { eventually, type Receiver, startReceiver } from '../support/webhooks.ts';

let stack: TestStack;
let hooks: Receiver;
let acme: IssuedApiKey;
let client: MerchantClient;

beforeAll(async () => {
  stack = await startTestStack();
  hooks = await startReceiver();
  acme = await stack.issueKey('sdk-co', 'test');
  client = createClient({ baseUrl: stack.baseUrl, apiKey: acme.api_key });
});
afterAll(async () => {
  await hooks.close();
  await stack.stop();
});

/** The webhooks received so far of one type, verified with `secret` by the SDK. */
const received = (type: string, secret: string) =>
  hooks.received
    .map((webhook) => verifyWebhook(webhook.body, webhook.headers as Record<string, string>, secret))
    .filter((event) => event.type === type);

describe('the merchant SDK against the local stack', () => {
  it('creates an endpoint and a link, receives and verifies the payment, lists the events and refunds', async () => {
    const endpoint = await client.POST('/v1/webhook-endpoints', {
      body: { url: hooks.url, enabled_events: ['payment_link.paid', 'refund.succeeded'] },
    });
    expect(endpoint.response.status).toBe(201);
    const secret = endpoint.data?.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const created = await client.POST('/v1/payment-links', {
      body: { amount: { value: '10.00', currency: 'EUR' }, description: 'Order 7' },
      headers: { 'Idempotency-Key': 'sdk-order-7' },
    });
    const link = created.data;
    if (!link) throw new Error(`not created: ${JSON.stringify(created.error)}`);
    expect(link.status).toBe('open');

    // The buyer pays in the sandbox: the checkout page forwards to the sandbox's page, where "Pay" is pressed.
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    await httpRequest(`${stack.baseUrl}/sandbox/checkout/${session?.id}/pay`, { method: 'POST' });

    const [paid] = await eventually(async () => {
      const events = received('payment_link.paid', secret);
      return events.length > 0 && events;
    });
    expect(paid).toMatchObject({ type: 'payment_link.paid', data: { id: link.id, status: 'paid' } });
    expect(paid?.id).toMatch(/^evt_/);
    expect(() =>
      verifyWebhook(
        hooks.received[0]?.body ?? '',
        hooks.received[0]?.headers as Record<string, string>,
        acme.webhook_secret,
      ),
    ).toThrow();

    const events = await client.GET('/v1/events', { params: { query: { link: link.id } } });
    expect(events.data?.data.map((event) => [event.id, event.type])).toEqual([
      [paid?.id, 'payment_link.paid'],
    ]);
    const one = await client.GET('/v1/events/{id}', { params: { path: { id: paid?.id as string } } });
    expect(one.data?.deliveries.map((delivery) => delivery.endpoint_id)).toEqual([endpoint.data?.id]);

    const refund = await client.POST('/v1/payment-links/{id}/refunds', {
      params: { path: { id: link.id } },
      body: { amount: { value: '4.00', currency: 'EUR' } },
    });
    expect(refund.data).toMatchObject({ status: 'succeeded', amount: { value: '4.00', currency: 'EUR' } });
    const [refunded] = await eventually(async () => {
      const found = received('refund.succeeded', secret);
      return found.length > 0 && found;
    });
    expect(refunded?.data).toMatchObject({ id: refund.data?.id, payment_link: { id: link.id } });
  });

  it('finds links by a metadata value, sending the filter as the document describes it (deepObject)', async () => {
    const body = { amount: { value: '3.00', currency: 'EUR' } };
    const tagged = await client.POST('/v1/payment-links', {
      body: { ...body, metadata: { order_id: 'sdk-7', shop: 'north' } },
    });
    await client.POST('/v1/payment-links', { body: { ...body, metadata: { order_id: 'sdk-8' } } });

    const found = await client.GET('/v1/payment-links', {
      params: { query: { metadata: { order_id: 'sdk-7', shop: 'north' } } },
    });

    expect(found.response.status).toBe(200);
    expect(found.data?.data.map((link) => link.id)).toEqual([tagged.data?.id]);
  });

  it('returns problems typed, without throwing', async () => {
    const missing = await client.GET('/v1/payment-links/{id}', {
      params: { path: { id: 'pl_000000000000000000000000' } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'not_found', status: 404 });
  });
});
