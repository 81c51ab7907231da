import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

const create = (body: unknown, key = acme.api_key) =>
  stack.request('POST', '/v1/payment-links', { key, body });
const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
  (response.body.errors ?? []).map((error) => error.pointer);
const line = (name: string, quantity: number, value: string, currency = 'EUR') => ({
  name,
  quantity,
  unit_amount: { value, currency },
});

describe('a link with line items', () => {
  it('gets their sum as its amount and shows the lines, escaped, on the checkout page', async () => {
    const response = await create({
      line_items: [{ ...line('Beans <1 kg>', 2, '24.95'), tax_rate: '9' }, line('Grinder', 1, '149')],
    });
    expect(response.status).toBe(201);
    expect(response.body.amount).toEqual({ value: '198.90', currency: 'EUR' });
    expect(response.body.line_items).toEqual([
      { ...line('Beans <1 kg>', 2, '24.95'), tax_rate: '9', adjustable_quantity: null },
      { ...line('Grinder', 1, '149'), tax_rate: null, adjustable_quantity: null },
    ]);

    const page = await navigate(`${response.body.checkout_url}?canceled=1`);
    expect(page.text).toContain('<th scope="row">Beans &lt;1 kg&gt;');
    expect(page.text).toContain('€49.90');
    expect(page.text).toMatch(/<tfoot><tr><th scope="row" colspan="3">Total<\/th><td>€198.90<\/td>/);
  });

  it.each([
    [{}, ['/amount']],
    [{ amount: { value: '1', currency: 'EUR' }, line_items: [line('a', 1, '1')] }, ['/line_items']],
    [{ line_items: [] }, ['/line_items']],
    [{ line_items: [line('a', 1, '1'), line('b', 1, '1', 'USD')] }, ['/line_items/1/unit_amount/currency']],
    [
      { line_items: [line('', 0, '1.001')] },
      ['/line_items/0/name', '/line_items/0/quantity', '/line_items/0/unit_amount/value'],
    ],
    [{ line_items: [{ ...line('a', 1, '1'), tax_rate: '101' }] }, ['/line_items/0/tax_rate']],
    [{ line_items: [line('a', 1, '0')] }, ['/line_items/0/unit_amount/value']],
    [{ line_items: Array.from({ length: 101 }, () => line('a', 1, '1')) }, ['/line_items']],
    [{ line_items: [line('a', 10000, '999999999999')] }, ['/line_items']],
  ])('refuses bad input #%# with 422 at its pointers', async (body, expected) => {
    const response = await create(body);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_failed');
    expect(pointers(response)).toEqual(expected);
  });

  it('refuses to change its lines afterwards', async () => {
    const { body: link } = await create({ line_items: [line('a', 1, '1')] });
    const patch = await stack.request('PATCH', `/v1/payment-links/${link.id}`, {
      key: acme.api_key,
      body: { line_items: [line('b', 1, '2')] },
    });
    expect(patch.status).toBe(422);
    expect(pointers(patch)).toEqual(['/line_items']);
  });
});

describe('a link with payment methods', () => {
  it('is routed only to connections that serve one of them, and offers only those', async () => {
    const key = (await stack.issueKey('methods', 'test')).api_key;
    const cards = await addConnection({
      account: 'methods',
      mode: 'test',
      provider: 'sandbox',
      name: 'Cards only',
      methods: ['card'],
    });
    const dutch = await addConnection({
      account: 'methods',
      mode: 'test',
      provider: 'sandbox',
      name: 'Dutch methods',
      methods: ['ideal', 'bancontact'],
    });
    const listed = await stack.request('GET', '/v1/psp-connections', { key });
    expect(listed.body.data.map((c: { id: string; methods: string[] }) => [c.id, c.methods])).toEqual([
      [cards.id, ['card']],
      [dutch.id, ['ideal', 'bancontact']],
    ]);

    const { body: link } = await create(
      { amount: { value: '10', currency: 'EUR' }, payment_methods: ['ideal'] },
      key,
    );
    expect(link.payment_methods).toEqual(['ideal']);
    await navigate(link.checkout_url);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(dutch.id);
  });

  it('refuses methods outside the vocabulary, and a repeated one', async () => {
    expect(
      pointers(await create({ amount: { value: '1', currency: 'EUR' }, payment_methods: ['cash'] })),
    ).toEqual(['/payment_methods/0']);
    expect(
      pointers(await create({ amount: { value: '1', currency: 'EUR' }, payment_methods: ['card', 'card'] })),
    ).toEqual(['/payment_methods']);
  });
});
