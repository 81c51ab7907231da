import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredInterfaces, interfaceCapabilities } from '../../../../../test/support/psp-fakes.ts';
import { detailsPspPageAsks } from '../../../../domain/buyer.ts';
import { sessionExpiry } from '../../../../domain/checkout/sessions.ts';
import type { PspConnection } from '../../../../domain/connection.ts';
import { InvalidNotificationError } from '../../../../domain/errors.ts';
import { newPaymentLink, type PaymentLink } from '../../../../domain/payment-link.ts';
import { PspRefusalError } from '../../../../ports/psp.ts';
import { stripeAdapter, stripeEndpoint } from '../adapter.ts';
import { stripe as descriptor } from '../descriptor.ts';
import { type FakeStripe, startFakeStripe } from './fake.ts';

const credentials = { secret_key: 'sk_test_fake_123', webhook_secret: 'whsec_fake_456' };
let stripe: FakeStripe;
let psp: ReturnType<typeof stripeAdapter>;
const connection: PspConnection = {
  id: 'pc_stripe00000000000000000000',
  account: 'acme',
  mode: 'test',
  provider: 'stripe',
  name: 'Stripe',
  enabled: true,
  simulate: null,
  secret_name: 'psp/connections/pc_stripe00000000000000000000',
  created_at: new Date().toISOString(),
};

beforeAll(async () => {
  stripe = await startFakeStripe({ secretKey: credentials.secret_key });
  psp = stripeAdapter(descriptor, Stripe, credentials, connection, stripeEndpoint(stripe.url));
});
afterAll(() => stripe.stop());

const now = new Date();
const link = (value: string, currency: string, expiresAt?: string) =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    {
      amount: { value, currency },
      description: 'Order 1001',
      redirect_url: 'https://shop.example/thanks',
      expires_at: expiresAt,
    },
    now,
  );
const checkout = (paymentLink: PaymentLink, expiresAt: Date, locale = 'en') => ({
  link: paymentLink,
  amount: paymentLink.amount!,
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://pay.example/checkout/pl_x?canceled=1',
  notificationUrl: `https://pay.example/psp/stripe/notifications/${connection.id}`,
  expiresAt,
  paymentId: 'pay_stripetest000000000000000',
  locale,
  paymentMethods: null,
});

describe('the Stripe adapter, through the official SDK against a Stripe-speaking server', () => {
  it('has the capabilities its descriptor declares, and no other', () => {
    expect(interfaceCapabilities(psp)).toEqual(declaredInterfaces(descriptor));
  });

  it('creates a Checkout Session with the amount in minor units, the link as client_reference_id and the expiry', async () => {
    const paymentLink = link('10.5', 'EUR');
    const expiresAt = new Date(Math.floor(Date.now() / 1000 + 3600) * 1000);
    const session = await psp.createSession(checkout(paymentLink, expiresAt));

    const request = stripe.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(request?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request?.headers.authorization).toBe(`Bearer ${credentials.secret_key}`);
    expect(request?.form).toMatchObject({
      mode: 'payment',
      client_reference_id: paymentLink.id,
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '1050',
      'line_items[0][price_data][product_data][name]': 'Order 1001',
      success_url: 'https://shop.example/thanks',
      cancel_url: 'https://pay.example/checkout/pl_x?canceled=1',
      expires_at: String(expiresAt.getTime() / 1000),
      'metadata[link_id]': paymentLink.id,
      'metadata[mode]': 'test',
      'metadata[payment_id]': 'pay_stripetest000000000000000',
    });
    expect(session).toEqual({
      provider: 'stripe',
      connection_id: connection.id,
      payment_id: 'pay_stripetest000000000000000',
      id: expect.stringMatching(/^cs_test_/),
      url: `https://checkout.stripe.com/c/pay/${session.id}`,
      expires_at: expiresAt.toISOString(),
    });
  });

  it('converts by the currency exponent: JPY has none, KWD has three', async () => {
    await psp.createSession(checkout(link('500', 'JPY'), new Date(Date.now() + 3_600_000)));
    expect(stripe.requests.at(-1)?.form['line_items[0][price_data][unit_amount]']).toBe('500');
    await psp.createSession(checkout(link('1.5', 'KWD'), new Date(Date.now() + 3_600_000)));
    expect(stripe.requests.at(-1)?.form['line_items[0][price_data][unit_amount]']).toBe('1500');
  });

  it("uses Stripe's exponent where it differs from ISO 4217: MGA has none, ISK is sent with two", async () => {
    await psp.createSession(checkout(link('1000', 'MGA'), new Date(Date.now() + 3_600_000)));
    expect(stripe.requests.at(-1)?.form['line_items[0][price_data][unit_amount]']).toBe('1000');
    await psp.createSession(checkout(link('500', 'ISK'), new Date(Date.now() + 3_600_000)));
    expect(stripe.requests.at(-1)?.form['line_items[0][price_data][unit_amount]']).toBe('50000');
    const sent = stripe.requests.length;
    await expect(
      psp.createSession(checkout(link('10.5', 'MGA'), new Date(Date.now() + 3_600_000))),
    ).rejects.toThrow(/cannot express/);
    expect(stripe.requests.length).toBe(sent);
  });

  it('refuses, before asking Stripe, an amount in a three-decimal currency whose last digit is not 0', async () => {
    const sent = stripe.requests.length;

    await expect(
      psp.createSession(checkout(link('10.005', 'KWD'), new Date(Date.now() + 3_600_000))),
    ).rejects.toThrow(PspRefusalError);
    await expect(
      psp.createSession(checkout(link('10.005', 'KWD'), new Date(Date.now() + 3_600_000))),
    ).rejects.toThrow(/third decimal must be 0/);

    expect(stripe.requests.length).toBe(sent);
    await psp.createSession(checkout(link('10.01', 'BHD'), new Date(Date.now() + 3_600_000)));
    expect(stripe.requests.at(-1)?.form['line_items[0][price_data][unit_amount]']).toBe('10010');
  });

  it('refuses, before asking Stripe, a KWD line of 1.005 even when the lines add up to whole hundredths', async () => {
    const kwdLines = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        line_items: [{ name: 'Dates 500 g', quantity: 2, unit_amount: { value: '1.005', currency: 'KWD' } }],
        redirect_url: 'https://shop.example/thanks',
      },
      new Date(),
    );
    expect(kwdLines.amount).toEqual({ value: '2.010', currency: 'KWD' });
    const sent = stripe.requests.length;
    const attempt = psp.createSession(checkout(kwdLines, new Date(Date.now() + 3_600_000)));
    await expect(attempt).rejects.toThrow(PspRefusalError);
    await expect(attempt).rejects.toThrow(/Line 1: .*third decimal must be 0/);
    expect(stripe.requests.length).toBe(sent);
  });

  it('is answered by the fake as by Stripe: every line of a three-decimal currency must be a multiple of 10', async () => {
    const response = await fetch(`${stripe.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${credentials.secret_key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        mode: 'payment',
        success_url: 'https://shop.example/thanks',
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'kwd',
        'line_items[0][price_data][unit_amount]': '1000',
        'line_items[0][price_data][product_data][name]': 'Tea',
        'line_items[1][quantity]': '2',
        'line_items[1][price_data][currency]': 'kwd',
        'line_items[1][price_data][unit_amount]': '1005',
        'line_items[1][price_data][product_data][name]': 'Dates 500 g',
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      param: 'line_items[1][price_data][unit_amount]',
    });
  });

  it('reads back what the session charges, in our decimal form, from amount_total and currency', async () => {
    const created = await psp.createSession(checkout(link('500', 'ISK'), new Date(Date.now() + 3_600_000)));
    expect((await psp.retrieveSession(created.id)).amount).toEqual({ value: '500', currency: 'ISK' });
    const kwd = await psp.createSession(checkout(link('12.34', 'KWD'), new Date(Date.now() + 3_600_000)));
    expect((await psp.retrieveSession(kwd.id)).amount).toEqual({ value: '12.340', currency: 'KWD' });
  });

  it('asks for a session of at least 30 minutes after Stripe creates it, in whole seconds, however long the request takes', async () => {
    stripe.latencyMs = 1_100; // the request reaches Stripe in the next second
    try {
      // A link about to expire: its session gets the shortest life Stripe allows.
      const soon = link('10.00', 'EUR', new Date(Date.now() + 5 * 60_000).toISOString());
      const session = await psp.createSession(
        checkout(soon, sessionExpiry(soon, new Date(), descriptor.sessionLimits)),
      );
      const created = stripe.sessions.get(session.id)!;
      expect(Number(created.expires_at) - Number(created.created)).toBeGreaterThanOrEqual(30 * 60);
    } finally {
      stripe.latencyMs = 0;
    }
  });

  it("asks for a session of at most 24 hours of Stripe's clock, even when ours runs ahead of it", async () => {
    // Our clock a second and a half ahead of Stripe's (two machines; the checkout's strictly increasing `now`).
    const ours = new Date(Date.now() + 1_500);
    const lasting = link('10.00', 'EUR');
    const session = await psp.createSession(
      checkout(lasting, sessionExpiry(lasting, ours, descriptor.sessionLimits)),
    );
    const created = stripe.sessions.get(session.id)!;
    expect(Number(created.expires_at) - Number(created.created)).toBeLessThanOrEqual(24 * 3600);
  });

  it('verifies a notification signed with the webhook secret and names the session', async () => {
    const session = await psp.createSession(checkout(link('10', 'EUR'), new Date(Date.now() + 3_600_000)));
    const event = stripe.signedEvent(
      'checkout.session.completed',
      stripe.sessions.get(session.id)!,
      credentials.webhook_secret,
    );
    const notification = await psp.verifyNotification(event.body, { 'stripe-signature': event.signature });
    expect(notification).toEqual([
      { type: 'checkout.session.completed', sessionId: session.id, refundReference: null, livemode: false },
    ]);

    const expired = stripe.signedEvent(
      'checkout.session.expired',
      stripe.sessions.get(session.id)!,
      credentials.webhook_secret,
    );
    await expect(
      psp.verifyNotification(expired.body, { 'stripe-signature': expired.signature }),
    ).resolves.toMatchObject([{ type: 'checkout.session.expired', sessionId: session.id }]);
  });

  it('rejects a notification signed with another secret, tampered with, or unsigned', async () => {
    const session = await psp.createSession(checkout(link('10', 'EUR'), new Date(Date.now() + 3_600_000)));
    const forged = stripe.signedEvent(
      'checkout.session.completed',
      stripe.sessions.get(session.id)!,
      'whsec_attacker',
    );
    await expect(
      psp.verifyNotification(forged.body, { 'stripe-signature': forged.signature }),
    ).rejects.toThrow(InvalidNotificationError);
    const genuine = stripe.signedEvent(
      'checkout.session.completed',
      stripe.sessions.get(session.id)!,
      credentials.webhook_secret,
    );
    const tampered = genuine.body.replace('"livemode":false', '"livemode":true');
    await expect(psp.verifyNotification(tampered, { 'stripe-signature': genuine.signature })).rejects.toThrow(
      InvalidNotificationError,
    );
    await expect(psp.verifyNotification(genuine.body, {})).rejects.toThrow(InvalidNotificationError);
  });

  it("asks Stripe's page what collect asks, prefills the e-mail, and reads the buyer's answers back normalised", async () => {
    const asking = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        amount: { value: '20', currency: 'EUR' },
        collect: { phone: 'required', billing_address: 'required', shipping_address: { countries: ['DE'] } },
      },
      now,
    );
    const session = await psp.createSession({
      ...checkout(asking, new Date(Date.now() + 3_600_000)),
      references: { client_reference_id: 'crm-7781', prefilled_email: 'kim@example.com' },
      // As checkout decides it: what our page does not ask first.
      pageAsks: detailsPspPageAsks(asking.collect, descriptor.pageAsks),
    });
    expect(stripe.requests.at(-1)?.form).toMatchObject({
      client_reference_id: 'crm-7781',
      customer_email: 'kim@example.com',
      'phone_number_collection[enabled]': 'true',
      billing_address_collection: 'required',
      'shipping_address_collection[allowed_countries][0]': 'DE',
      'metadata[link_id]': asking.id,
    });
    expect(stripe.violations).toEqual([]);
    stripe.completeSession(session.id, {
      buyer: {
        name: '  Kim\u0000 Example ',
        phone: '030 1234567',
        address: { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'de' },
        shipping: {
          name: 'Kim Example',
          address: { line1: 'Friedrichstr. 2', city: 'Berlin', postal_code: '10117', country: 'DE' },
        },
      },
    });
    const status = await psp.retrieveSession(session.id);
    // The link is named by metadata when the buyer's reference takes Stripe's client_reference_id.
    expect(status.linkId).toBe(asking.id);
    expect(status.buyer).toEqual({
      email: 'kim@example.com',
      name: 'Kim Example',
      phone: '+49301234567',
      billing_address: { line1: 'Unter den Linden 1', city: 'Berlin', postal_code: '10117', country: 'DE' },
      shipping_address: { line1: 'Friedrichstr. 2', city: 'Berlin', postal_code: '10117', country: 'DE' },
    });
  });

  it('asks nothing of its own when our page asks a detail first: an optional phone or billing address', async () => {
    const optional = newPaymentLink(
      { account: 'acme', mode: 'test' },
      {
        amount: { value: '20', currency: 'EUR' },
        collect: { phone: 'optional', billing_address: 'optional' },
      },
      now,
    );
    await psp.createSession({
      ...checkout(optional, new Date(Date.now() + 3_600_000)),
      pageAsks: detailsPspPageAsks(optional.collect, descriptor.pageAsks),
    });
    const form = stripe.requests.at(-1)?.form ?? {};
    expect(form['phone_number_collection[enabled]']).toBeUndefined();
    expect(form.billing_address_collection).toBeUndefined();
  });

  it('reads the true status by retrieving the session: unpaid until Stripe completes it', async () => {
    const paymentLink = link('10', 'EUR');
    const session = await psp.createSession(checkout(paymentLink, new Date(Date.now() + 3_600_000)));
    await expect(psp.retrieveSession(session.id)).resolves.toMatchObject({
      linkId: paymentLink.id,
      paymentId: 'pay_stripetest000000000000000',
      state: 'pending',
    });
    const completed = stripe.completeSession(session.id);
    expect(stripe.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: `/v1/checkout/sessions/${session.id}`,
    });
    await expect(psp.retrieveSession(session.id)).resolves.toEqual({
      id: session.id,
      paymentId: 'pay_stripetest000000000000000',
      linkId: paymentLink.id,
      state: 'succeeded',
      failure: null,
      paymentReference: completed.payment_intent,
      amount: { value: '10.00', currency: 'EUR' },
      livemode: false,
      // Stripe's page always asks the e-mail, and its card form the name.
      buyer: { email: 'buyer@example.com', name: 'Jane Buyer' },
    });
  });

  it('refuses, before asking Stripe, an amount below its minimum charge', async () => {
    const sent = stripe.requests.length;
    await expect(
      psp.createSession(checkout(link('0.10', 'EUR'), new Date(Date.now() + 3_600_000))),
    ).rejects.toThrow(PspRefusalError);
    expect(stripe.requests.length).toBe(sent);
  });

  it("reports Stripe's 400 to a session as a refusal of the link, not a failure of Stripe", async () => {
    // Stripe refuses a session that would live longer than 24 hours.
    const failure = await psp
      .createSession(checkout(link('10', 'EUR'), new Date(Date.now() + 48 * 3_600_000)))
      .catch((error: unknown) => error);
    expect(stripe.requests.at(-1)?.path).toBe('/v1/checkout/sessions');
    expect(failure).toBeInstanceOf(PspRefusalError);
  });

  it('expires a session, and says when Stripe refuses to expire one that is no longer open', async () => {
    const session = await psp.createSession(checkout(link('10', 'EUR'), new Date(Date.now() + 3_600_000)));
    await expect(psp.expireSession(session)).resolves.toBe('ended');
    expect(stripe.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: `/v1/checkout/sessions/${session.id}/expire`,
    });
    expect(stripe.sessions.get(session.id)?.status).toBe('expired');
    await expect(psp.expireSession(session)).resolves.toBe('refused');
  });
});
