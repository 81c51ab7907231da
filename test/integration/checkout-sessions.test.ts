import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { type FakeMollie, MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { paymentRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

let psps: PspStack<typeof FAKES>;
let stripe: FakeStripe;
let mollie: FakeMollie;
let adyen: FakeAdyen;
let stack: TestStack;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, stripe, mollie, adyen } = psps);
});
afterAll(() => psps?.stop());

/** A fresh account with a key and connections of these providers, in that order (sandbox: a working one). */
async function account(name: string, providers: ('stripe' | 'mollie' | 'adyen' | 'sandbox')[]) {
  const key: IssuedApiKey = await stack.issueKey(name, 'test');
  const connections: PspConnection[] = [];
  for (const provider of providers) {
    connections.push(await psps.connect(name, provider));
  }
  return { key, connections };
}

/** The merchant changes what the buyer sees: the link drops its session, and asks its PSP to end it. */
const changeDescription = async (key: IssuedApiKey, linkId: string) => {
  const response = await stack.request('PATCH', `/v1/payment-links/${linkId}`, {
    key: key.api_key,
    body: { description: 'Order 1001, corrected' },
  });
  expect(response.status).toBe(200);
};

const posts = (requests: { method: string; path: string }[], path: RegExp) =>
  requests.filter((request) => request.method === 'POST' && path.test(request.path)).length;

const healthOf = async (connection: PspConnection) =>
  (await pspConnectionRepository().directory(connection.account, 'test')).connections.find(
    (state) => state.connection.id === connection.id,
  )?.health;

describe('one payable PSP session per link', () => {
  it('shows the open Mollie payment again when Mollie will not cancel it, and opens no other', async () => {
    const { key } = await account('sessions-mollie', ['mollie', 'sandbox']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // The buyer started a bank transfer: Mollie answers 422 to a cancel from now on.
    mollie.setStatus(session.id, 'pending');
    await changeDescription(key, link.id);
    const created = posts(mollie.requests, /^\/v2\/payments$/);

    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(session.url);
    expect(posts(mollie.requests, /^\/v2\/payments$/)).toBe(created);
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    expect(payments.map((payment) => payment.status)).toEqual(['pending']);
  });

  it('opens no session while the PSP holding the open one cannot be asked, and shows the buyer that one', async () => {
    const { key } = await account('sessions-adyen-down', ['adyen', 'sandbox']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    adyen.outage = 'error';
    try {
      await changeDescription(key, link.id);
      const page = await navigate(link.checkout_url);
      expect(page.status).toBe(200);
      expect(page.text).toContain(session.url);
      expect(posts(adyen.requests, /\/paymentLinks$/)).toBe(1);
      expect(await paymentRepository().listOfLink(link.id, 'test')).toHaveLength(1);
    } finally {
      adyen.outage = 'none';
    }

    // Adyen back: the old link is ended (confirmed), then the fresh one opened.
    await navigate(link.checkout_url);
    const fresh = (await storedLink(link.id)).psp_session!;
    expect(fresh.id).not.toBe(session.id);
    expect(adyen.paymentLinks.get(session.id)?.status).toBe('expired');
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    expect(payments.find((payment) => payment.id === session.payment_id)?.status).toBe('canceled');
  });

  it('records a session its PSP will not end because it was paid, and shows the link as paid', async () => {
    const { key } = await account('sessions-stripe-paid', ['stripe', 'sandbox']);
    const link = await createLink(stack, key.api_key);
    await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    // Paid at Stripe; its notification has not arrived.
    const paid = stripe.completeSession(session.id);
    await changeDescription(key, link.id);

    const page = await navigate(link.checkout_url);
    expect(page.text).toContain('already been paid');
    const stored = await storedLink(link.id);
    expect(stored.status).toBe('paid');
    expect(stored.payment).toMatchObject({ id: session.payment_id, reference: paid.payment_intent });
    expect(
      stripe.requests.filter(
        (request) => request.path === '/v1/checkout/sessions' && request.form.client_reference_id === link.id,
      ),
    ).toHaveLength(1);
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: key.api_key });
    expect(events.body.data.map((event: { type: string }) => event.type)).toEqual(['payment_link.paid']);
  });
});

describe('what counts against a connection’s health', () => {
  it.each([
    // Stripe's minimum charge in EUR is 0.50.
    { rule: 'minimum', value: '0.30', currency: 'EUR' },
    // Stripe takes three-decimal amounts only in whole hundredths.
    { rule: 'three-decimals', value: '10.005', currency: 'KWD' },
  ])(
    'skips, without calling it, a connection whose PSP cannot take the amount ($value $currency), and counts nothing against it',
    async ({ rule, value, currency }) => {
      const { key, connections } = await account(`health-stripe-${rule}`, ['stripe', 'sandbox']);
      const link = await createLink(stack, key.api_key, { amount: { value, currency } });
      await navigate(link.checkout_url);
      expect((await storedLink(link.id)).psp_session?.connection_id).toBe(connections[1]?.id);
      expect(
        stripe.requests.filter(
          (request) =>
            request.path === '/v1/checkout/sessions' && request.form.client_reference_id === link.id,
        ),
      ).toHaveLength(0);
      const payments = await paymentRepository().listOfLink(link.id, 'test');
      expect(payments.map((payment) => payment.connection_id)).toEqual([connections[1]?.id]);
      expect(await healthOf(connections[0]!)).toMatchObject({ consecutive_failures: 0, down_until: null });
    },
  );

  it('fails over when the PSP refuses the link, without counting it against the connection', async () => {
    const { key, connections } = await account('health-mollie-refusal', ['mollie', 'sandbox']);
    // Mollie does not take KWD (three decimals): it answers 422.
    const link = await createLink(stack, key.api_key, { amount: { value: '10.500', currency: 'KWD' } });
    await navigate(link.checkout_url);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(connections[1]?.id);
    const payments = await paymentRepository().listOfLink(link.id, 'test');
    expect(payments.find((payment) => payment.connection_id === connections[0]?.id)).toMatchObject({
      status: 'failed',
      failure: { code: 'psp_unavailable' },
    });
    expect(await healthOf(connections[0]!)).toMatchObject({ consecutive_failures: 0 });
  });

  it('counts the PSP’s own failure (a 5xx) against the connection', async () => {
    const { key, connections } = await account('health-mollie-down', ['mollie', 'sandbox']);
    const link = await createLink(stack, key.api_key);
    mollie.outage = 'error';
    try {
      await navigate(link.checkout_url);
    } finally {
      mollie.outage = 'none';
    }
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(connections[1]?.id);
    expect(await healthOf(connections[0]!)).toMatchObject({ consecutive_failures: 1 });
  });
});
