import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const create = (body: unknown, key: string) => stack.request('POST', '/v1/payment-links', { key, body });
const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
  (response.body.errors ?? []).map((error) => error.pointer);

describe('routing on payment methods', () => {
  it('lets a routing rule match on payment_method', async () => {
    const key = (await stack.issueKey('rules', 'test')).api_key;
    const a = await addConnection({ account: 'rules', mode: 'test', provider: 'sandbox', name: 'A' });
    const b = await addConnection({ account: 'rules', mode: 'test', provider: 'sandbox', name: 'B' });
    const put = await stack.request('PUT', '/v1/routing', {
      key,
      body: {
        rules: [{ name: 'paypal', when: { payment_method: ['paypal'] }, then: { priority: [b.id] } }],
        default: [a.id],
      },
    });
    expect(put.status).toBe(200);
    const { body: paypal } = await create(
      { amount: { value: '10', currency: 'EUR' }, payment_methods: ['paypal'] },
      key,
    );
    await navigate(paypal.checkout_url);
    expect((await storedLink(paypal.id)).psp_session?.connection_id).toBe(b.id);
    const bad = await stack.request('PUT', '/v1/routing', {
      key,
      body: {
        rules: [{ name: 'x', when: { payment_method: ['cash'] }, then: { priority: [b.id] } }],
        default: [a.id],
      },
    });
    expect(pointers(bad)).toEqual(['/rules/0/when/payment_method/0']);
  });

  it("routes a link that asks for Southeast Asia's methods (qris, e-wallets) only to connections that serve them", async () => {
    const key = (await stack.issueKey('sea', 'test')).api_key;
    const cards = await addConnection({
      account: 'sea',
      mode: 'test',
      provider: 'sandbox',
      name: 'Cards',
      methods: ['card'],
    });
    const local = await addConnection({
      account: 'sea',
      mode: 'test',
      provider: 'sandbox',
      name: 'Local',
      methods: ['qris', 'gcash', 'ovo', 'dana', 'shopeepay'],
    });
    for (const method of ['qris', 'gcash', 'ovo', 'dana', 'shopeepay']) {
      const created = await create(
        {
          amount: { value: '150000', currency: 'IDR' },
          payment_methods: [method],
          connections: [cards.id, local.id],
        },
        key,
      );
      expect(created.status).toBe(201);
      await navigate(created.body.checkout_url);
      expect((await storedLink(created.body.id)).psp_session?.connection_id).toBe(local.id);
    }
  });

  it("routes a link that asks for India's methods (upi, netbanking) only to connections that serve them", async () => {
    const key = (await stack.issueKey('india', 'test')).api_key;
    const cards = await addConnection({
      account: 'india',
      mode: 'test',
      provider: 'sandbox',
      name: 'Cards',
      methods: ['card'],
    });
    const local = await addConnection({
      account: 'india',
      mode: 'test',
      provider: 'sandbox',
      name: 'Local',
      methods: ['upi', 'netbanking'],
    });
    for (const method of ['upi', 'netbanking']) {
      const created = await create(
        {
          amount: { value: '499.00', currency: 'INR' },
          payment_methods: [method],
          connections: [cards.id, local.id],
        },
        key,
      );
      expect(created.status).toBe(201);
      await navigate(created.body.checkout_url);
      expect((await storedLink(created.body.id)).psp_session?.connection_id).toBe(local.id);
    }
  });
});
