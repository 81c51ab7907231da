import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { type FakePaypal, PAYPAL_FAKE } from '../../functions/adapters/psp/paypal/test/fake.ts';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { REFERENCES_COOKIE } from '../../functions/http/checkout/references.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS, postOurForm } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, adyen: ADYEN_FAKE, paypal: PAYPAL_FAKE };

/**
 * Buyer references on the checkout address (docs/api.md#buyer-references) and the details Stripe's page asks
 * (docs/checkout.md#on-the-psps-page), end to end: the address's `client_reference_id` and `prefilled_email` reach
 * the payment and Stripe's session, the buyer's details come back from Stripe onto the payment, and both are read
 * through `GET /v1/payment-links/{id}/payments` and in `payment_link.paid`.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let stripe: FakeStripe;
let adyen: FakeAdyen;
let paypal: FakePaypal;
let key: IssuedApiKey;
let connection: string;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, stripe, adyen, paypal } = psps);
  key = await stack.issueKey('referenceshop', 'test');
  connection = (await psps.connect('referenceshop', 'stripe')).id;
});
afterAll(() => psps?.stop());

/** A buyer's browser: it keeps every cookie the checkout page sets, as a browser does. */
function browser() {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const keep = (set: string | string[] | undefined) => {
    for (const line of ([] as string[]).concat(set ?? [])) {
      const [pair = ''] = line.split(';');
      const separator = pair.indexOf('=');
      jar.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
  };
  return {
    jar,
    async visit(url: string) {
      const page = await httpRequest(url, {
        headers: { ...NAVIGATION_HEADERS, ...(jar.size > 0 ? { cookie: cookie() } : {}) },
      });
      keep(page.headers['set-cookie']);
      return page;
    },
    /** The amount form of a buyer-chosen amount, sent from our own page. */
    async choose(url: string, amount: string) {
      const page = await postOurForm(url, { amount }, jar.size > 0 ? { cookie: cookie() } : {});
      keep(page.headers['set-cookie']);
      return page;
    },
  };
}

const notifyPaid = async (sessionId: string, buyer?: Parameters<FakeStripe['completeSession']>[1]) => {
  const paid = stripe.completeSession(sessionId, buyer);
  const { webhook_secret } = STRIPE_FAKE.credentials;
  const event = stripe.signedEvent('checkout.session.completed', paid, webhook_secret);
  const response = await stack.request('POST', `/psp/stripe/notifications/${connection}`, {
    rawBody: event.body,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
  expect(response.status).toBe(200);
};

/** The Stripe session the last request opened, with what it was asked. */
function lastSession() {
  const request = stripe.requests.filter((sent) => sent.path === '/v1/checkout/sessions').at(-1);
  const session = [...stripe.sessions.values()].at(-1);
  if (!request || !session) throw new Error('no Stripe session');
  return { form: request.form, id: session.id };
}

const payments = async (linkId: string, apiKey = key.api_key) => {
  const response = await stack.request('GET', `/v1/payment-links/${linkId}/payments`, { key: apiKey });
  expect(response.status).toBe(200);
  expectDocumented('get', '/v1/payment-links/{id}/payments', response);
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON resource, asserted on below
  return response.body.data as any[];
};

const paidEvents = async (linkId: string, apiKey = key.api_key) => {
  const response = await stack.request('GET', `/v1/payment-links/${linkId}/events`, { key: apiKey });
  expect(response.status).toBe(200);
  expectDocumented('get', '/v1/payment-links/{id}/events', response);
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON resource, asserted on below
  const paid = (response.body.data as any[]).filter((event) => event.type === 'payment_link.paid');
  return Promise.all(
    paid.map(async ({ id }) => {
      const event = await stack.request('GET', `/v1/events/${id}`, { key: apiKey });
      expectDocumented('get', '/v1/events/{id}', event);
      return event.body;
    }),
  );
};

describe('references on the checkout address', () => {
  it("carry each buyer's own reference on a reusable link, to Stripe, the payment and payment_link.paid, with the details Stripe's page asked", async () => {
    const link = await createLink(stack, key.api_key, {
      reusable: true,
      collect: {
        phone: 'required',
        billing_address: 'required',
        shipping_address: { countries: ['NL', 'BE'] },
      },
    });

    const first = browser();
    const page = await first.visit(
      `${link.checkout_url}?client_reference_id=order-A_1&prefilled_email=${encodeURIComponent('ann@example.com')}`,
    );
    expect(page.status).toBe(200);
    const sessionA = lastSession();
    expect(sessionA.form).toMatchObject({
      client_reference_id: 'order-A_1',
      customer_email: 'ann@example.com',
      'phone_number_collection[enabled]': 'true',
      billing_address_collection: 'required',
      'shipping_address_collection[allowed_countries][0]': 'NL',
      'shipping_address_collection[allowed_countries][1]': 'BE',
    });
    expect(stripe.violations).toEqual([]);

    const second = browser();
    await second.visit(`${link.checkout_url}?client_reference_id=order-B`);
    const sessionB = lastSession();
    expect(sessionB.form.client_reference_id).toBe('order-B');
    expect(sessionB.form.customer_email).toBeUndefined();

    await notifyPaid(sessionA.id, { buyer: { name: 'Ann Buyer', phone: '06 12345678' } });
    await notifyPaid(sessionB.id, {
      buyer: { email: 'bob@example.com', name: 'Bob', phone: '+32 470 12 34 56' },
    });

    const listed = await payments(link.id);
    const byReference = new Map(listed.map((payment) => [payment.client_reference_id, payment]));
    expect(byReference.get('order-A_1')).toMatchObject({
      status: 'succeeded',
      buyer: {
        email: 'ann@example.com',
        name: 'Ann Buyer',
        // A number without its country code is read in the country of the buyer's address.
        phone: '+31612345678',
        billing_address: {
          line1: 'Keizersgracht 1',
          city: 'Amsterdam',
          postal_code: '1015 CJ',
          country: 'NL',
        },
        shipping_address: { line1: 'Damrak 1', city: 'Amsterdam', postal_code: '1012 LG', country: 'NL' },
      },
    });
    expect(byReference.get('order-B')).toMatchObject({
      status: 'succeeded',
      buyer: { email: 'bob@example.com', name: 'Bob', phone: '+32470123456' },
    });

    const events = await paidEvents(link.id);
    expect(events.map((event) => event.data.payment.client_reference_id).sort()).toEqual([
      'order-A_1',
      'order-B',
    ]);
    const eventOfA = events.find((event) => event.data.payment.client_reference_id === 'order-A_1');
    expect(eventOfA.data.payment.buyer).toEqual(byReference.get('order-A_1').buyer);
  });

  it('drops malformed values silently: the page forwards as usual, the payment and Stripe get none of them', async () => {
    const link = await createLink(stack, key.api_key);
    const buyer = browser();
    const tooLong = 'x'.repeat(201);
    for (const query of [
      `client_reference_id=${encodeURIComponent('order 1; drop')}&prefilled_email=not-an-address`,
      `client_reference_id=${tooLong}&prefilled_email=${encodeURIComponent('a@b@c')}`,
      'client_reference_id=&prefilled_email=',
    ]) {
      const page = await buyer.visit(`${link.checkout_url}?${query}`);
      expect(page.status).toBe(200);
      expect(buyer.jar.has(REFERENCES_COOKIE)).toBe(false);
    }
    const session = lastSession();
    expect(session.form.client_reference_id).toBe(link.id);
    expect(session.form.customer_email).toBeUndefined();
    const [payment] = await payments(link.id);
    expect(payment).toMatchObject({ client_reference_id: null, buyer: null });
  });

  it("outlive the amount form: the reference of the address reaches the session the buyer's chosen amount opens", async () => {
    const link = await createLink(stack, key.api_key, {
      amount: undefined,
      amount_range: { minimum: '5.00', maximum: '50.00', currency: 'EUR' },
    });
    const buyer = browser();
    const form = await buyer.visit(`${link.checkout_url}?client_reference_id=donor-42`);
    expect(form.text).toContain('<form method="post"');
    expect(buyer.jar.has(REFERENCES_COOKIE)).toBe(true);

    const answer = await buyer.choose(link.checkout_url, '12.50');
    expect(answer.status).toBe(303);
    expect(lastSession().form.client_reference_id).toBe('donor-42');
    const [payment] = await payments(link.id);
    expect(payment).toMatchObject({ client_reference_id: 'donor-42', amount: { value: '12.50' } });
  });

  it("reach Adyen's page too: the shopper's required fields come back onto the payment and into payment_link.paid", async () => {
    const adyenKey = await stack.issueKey('referenceadyen', 'test');
    const adyenConnection = (await psps.connect('referenceadyen', 'adyen')).id;
    const link = await createLink(stack, adyenKey.api_key, {
      collect: { email: 'required', phone: 'required' },
    });
    await browser().visit(
      `${link.checkout_url}?client_reference_id=shopper-77&prefilled_email=${encodeURIComponent('sam@example.com')}`,
    );
    const sent = JSON.parse(
      adyen.requests.filter((request) => request.path.endsWith('/paymentLinks')).at(-1)?.body ?? '{}',
    );
    expect(sent).toMatchObject({
      requiredShopperFields: ['shopperEmail', 'telephoneNumber'],
      shopperEmail: 'sam@example.com',
      shopperReference: 'shopper-77',
    });
    const paymentLinkId = [...adyen.paymentLinks.keys()].at(-1) as string;
    const item = adyen.pay(paymentLinkId, { telephoneNumber: '+31 6 12345678' });
    const notified = await stack.request('POST', `/psp/adyen/notifications/${adyenConnection}`, {
      rawBody: adyen.notification([item], { hmacKey: ADYEN_FAKE.credentials.hmac_key }),
      headers: { 'content-type': 'application/json' },
    });
    expect(notified.status).toBe(200);
    const [payment] = await payments(link.id, adyenKey.api_key);
    expect(payment).toMatchObject({
      status: 'succeeded',
      client_reference_id: 'shopper-77',
      buyer: { email: 'sam@example.com', phone: '+31612345678' },
    });
    const [event] = await paidEvents(link.id, adyenKey.api_key);
    expect(event.data.payment).toMatchObject({ client_reference_id: 'shopper-77', buyer: payment.buyer });
    expect(adyen.violations).toEqual([]);
  });

  it('reach PayPal as the login offered, and the PayPal account that approved comes back as the buyer', async () => {
    const paypalKey = await stack.issueKey('referencepaypal', 'test');
    const paypalConnection = (await psps.connect('referencepaypal', 'paypal')).id;
    const link = await createLink(stack, paypalKey.api_key, { collect: { email: 'required' } });
    await browser().visit(
      `${link.checkout_url}?client_reference_id=pp-1&prefilled_email=${encodeURIComponent('pat@example.com')}`,
    );
    const order = [...paypal.orders.values()].at(-1);
    if (!order) throw new Error('no PayPal order');
    expect(order.prefilled_email).toBe('pat@example.com');
    paypal.approve(order.id, { name: { given_name: 'Pat', surname: 'Example' } });
    const delivery = paypal.delivery('CHECKOUT.ORDER.APPROVED', { orderId: order.id });
    const notified = await stack.request('POST', `/psp/paypal/notifications/${paypalConnection}`, {
      rawBody: delivery.body,
      headers: { 'content-type': 'application/json', ...delivery.headers },
    });
    expect(notified.status).toBe(200);
    const [payment] = await payments(link.id, paypalKey.api_key);
    expect(payment).toMatchObject({
      status: 'succeeded',
      client_reference_id: 'pp-1',
      buyer: { email: 'pat@example.com', name: 'Pat Example' },
    });
    const [event] = await paidEvents(link.id, paypalKey.api_key);
    expect(event.data.payment).toMatchObject({ client_reference_id: 'pp-1', buyer: payment.buyer });
    expect(paypal.violations).toEqual([]);
  });
});
