import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/** What a link asks its buyer beyond paying, as the API takes and shows it (docs/api.md#buyer-details). */
let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('acme', 'test');
});
afterAll(() => stack.stop());

const create = (body: Record<string, unknown>) =>
  stack.request('POST', '/v1/payment-links', { key: acme.api_key, body });
const pointers = (response: { body: { errors?: { pointer: string }[] } }) =>
  (response.body.errors ?? []).map((error) => error.pointer);
const fixed = { amount: { value: '12.00', currency: 'EUR' } };
const line = (quantity: number, adjustable_quantity?: unknown) => ({
  name: 'Ticket',
  quantity,
  unit_amount: { value: '25.00', currency: 'EUR' },
  ...(adjustable_quantity === undefined ? {} : { adjustable_quantity }),
});

describe('collect, custom_fields and adjustable quantities on link creation', () => {
  it('are stored and shown as given, with defaults filled in, and read back the same', async () => {
    const collect = { email: 'required', phone: 'optional', shipping_address: { countries: ['NL', 'BE'] } };
    const custom_fields = [
      { key: 'table', label: 'Table number', type: 'numeric', numeric: { maximum_length: 3 } },
      {
        key: 'size',
        label: 'Size',
        type: 'dropdown',
        optional: true,
        dropdown: {
          options: [
            { label: 'Small', value: 's' },
            { label: 'Large', value: 'l' },
          ],
        },
      },
    ];
    const created = await create({
      line_items: [line(2, { enabled: true, maximum: 10 })],
      collect,
      custom_fields,
    });
    expect(created.status).toBe(201);
    expect(created.body.collect).toEqual(collect);
    expect(created.body.custom_fields).toEqual([{ ...custom_fields[0], optional: false }, custom_fields[1]]);
    expect(created.body.line_items[0].adjustable_quantity).toEqual({
      enabled: true,
      minimum: 1,
      maximum: 10,
    });
    expect(created.body.amount).toEqual({ value: '50.00', currency: 'EUR' });

    const read = await stack.request('GET', `/v1/payment-links/${created.body.id}`, { key: acme.api_key });
    expect(read.body.collect).toEqual(collect);
    expect(read.body.custom_fields).toEqual(created.body.custom_fields);
    expect(read.body.line_items).toEqual(created.body.line_items);
  });

  it('are null on a link that asks nothing', async () => {
    const created = await create(fixed);
    expect(created.body).toMatchObject({ collect: null, custom_fields: null });
  });

  it.each([
    [{ collect: { email: 'always' } }, ['/collect/email']],
    [
      { collect: { shipping_address: { countries: ['UK', 'nl', 'EU'] } } },
      [
        '/collect/shipping_address/countries/0',
        '/collect/shipping_address/countries/1',
        '/collect/shipping_address/countries/2',
      ],
    ],
    [{ collect: { shipping_address: { countries: ['NL', 'NL'] } } }, ['/collect/shipping_address/countries']],
    [{ collect: { name: 'required' } }, ['/collect/name']],
    [{ custom_fields: [] }, ['/custom_fields']],
    [
      { custom_fields: Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, label: 'L', type: 'text' })) },
      ['/custom_fields'],
    ],
    [{ custom_fields: [{ key: 'a', label: 'A', type: 'dropdown' }] }, ['/custom_fields/0/dropdown']],
    [{ custom_fields: [{ key: 'a', label: 'A', type: 'text', numeric: {} }] }, ['/custom_fields/0/numeric']],
    [
      {
        custom_fields: [
          { key: 'a b', label: 'A', type: 'text', text: { minimum_length: 5, maximum_length: 2 } },
        ],
      },
      ['/custom_fields/0/key', '/custom_fields/0/text/minimum_length'],
    ],
    [
      {
        custom_fields: [
          { key: 'a', label: 'A', type: 'text' },
          { key: 'a', label: 'B', type: 'text' },
        ],
      },
      ['/custom_fields/1/key'],
    ],
  ])('refuses bad questions #%# with 422 at their pointers', async (fields, expected) => {
    const response = await create({ ...fixed, ...fields });
    expect(response.status).toBe(422);
    expect(pointers(response)).toEqual(expected);
  });

  it.each([
    [[line(11, { enabled: true, minimum: 1, maximum: 10 })], ['/line_items/0/quantity']],
    [[line(1, { enabled: true, minimum: 5, maximum: 2 })], ['/line_items/0/adjustable_quantity/minimum']],
    [[line(1, { enabled: true, maximum: 10_001 })], ['/line_items/0/adjustable_quantity/maximum']],
    // At the most a buyer may pick, the lines would pass the largest amount.
    [
      [
        {
          ...line(1, { enabled: true, maximum: 10_000 }),
          unit_amount: { value: '999999999', currency: 'EUR' },
        },
      ],
      ['/line_items'],
    ],
  ])('refuses adjustable quantities #%# that do not hold with 422', async (line_items, expected) => {
    const response = await create({ line_items });
    expect(response.status).toBe(422);
    expect(pointers(response)).toEqual(expected);
  });

  it('cannot be changed on an open link', async () => {
    const created = await create(fixed);
    const patched = await stack.request('PATCH', `/v1/payment-links/${created.body.id}`, {
      key: acme.api_key,
      body: { collect: { email: 'required' }, custom_fields: null },
    });
    expect(patched.status).toBe(422);
    expect(pointers(patched)).toEqual(['/collect', '/custom_fields']);
  });
});
