import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLink, storedLink } from '../../../../../test/support/checkout-helpers.ts';
import { configureLegacyPsp } from '../../../../../test/support/connections.ts';
import { navigate } from '../../../../../test/support/navigate.ts';
import { startTestStack, type TestStack } from '../../../../../test/support/test-stack.ts';
import { migratedConnectionId } from '../../../../domain/connection.ts';
import type { IssuedApiKey } from '../../../../use-cases/api-keys.ts';
import { type FakeStripe, startFakeStripe } from './fake.ts';

const credentials = { secret_key: 'sk_test_e2e_123', webhook_secret: 'whsec_e2e_456' };
let stripe: FakeStripe;
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: credentials.secret_key });
  stack = await startTestStack({ environment: { STRIPE_API_URL: stripe.url } });
  key = await stack.issueKey('stripeshop', 'test');
  await configureLegacyPsp('stripeshop', 'test', 'stripe', credentials);
});
afterAll(async () => {
  await stack.stop();
  await stripe.stop();
});

const notify = (event: { body: string; signature: string }) =>
  stack.request('POST', '/psp/stripe/notifications', {
    rawBody: event.body,
    headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': event.signature },
  });

describe('checkout through Stripe for an account configured with it before connections existed', () => {
  it('forwards to the Stripe Checkout Session and records the payment Stripe confirms', async () => {
    const link = await createLink(stack, key.api_key, { redirect_url: 'https://shop.example/thanks' });
    const page = await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session.provider).toBe('stripe');
    // Migrated on first use into a connection with a derived id, so its old notification address keeps working.
    expect(session.connection_id).toBe(migratedConnectionId('stripeshop', 'test'));
    expect(page.text).toContain(`url=https://checkout.stripe.com/c/pay/${session.id}`);
    expect(page.headers['content-security-policy']).toMatch(/form-action https:\/\/checkout\.stripe\.com;/);
    expect(stripe.requests.at(-1)?.form).toMatchObject({
      client_reference_id: link.id,
      success_url: 'https://shop.example/thanks',
      cancel_url: `${link.checkout_url}?canceled=1`,
    });

    const paid = stripe.completeSession(session.id);
    const response = await notify(
      stripe.signedEvent('checkout.session.completed', paid, credentials.webhook_secret),
    );
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('paid');
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: key.api_key });
    expect(read.body).toMatchObject({
      status: 'paid',
      payment: {
        id: session.payment_id,
        connection_id: session.connection_id,
        provider: 'stripe',
        reference: paid.payment_intent,
      },
    });
  });

  it('does not trust a genuine-looking "completed" event whose session Stripe still reports unpaid', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = stripe.sessions.get((await storedLink(link.id)).psp_session!.id)!;
    const claimsPaid = { ...session, status: 'complete', payment_status: 'paid' };
    const response = await notify(
      stripe.signedEvent('checkout.session.completed', claimsPaid, credentials.webhook_secret),
    );
    expect(response.status).toBe(200);
    expect(response.body.outcome).toBe('ignored');
    expect((await storedLink(link.id)).status).toBe('open');
  });

  it('rejects an event signed with another webhook secret (400) and changes nothing', async () => {
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const paid = stripe.completeSession((await storedLink(link.id)).psp_session!.id);
    const response = await notify(stripe.signedEvent('checkout.session.completed', paid, 'whsec_attacker'));
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('invalid_notification');
    expect((await storedLink(link.id)).status).toBe('open');
  });
});
