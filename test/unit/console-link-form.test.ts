import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../functions/domain/errors.ts';
import { createRequestOf } from '../../functions/http/console-link-form.ts';
import { createPaymentLinkRequest } from '../../functions/http/schemas.ts';
import { validate } from '../../functions/http/validate.ts';

const asApi = (fields: Record<string, string | string[]>) => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of [value].flat()) form.append(name, one);
  return validate(createPaymentLinkRequest('test', false), createRequestOf(form));
};

describe("the console's create form, as the API's create request", () => {
  it('is a buyer-chosen range in the chosen currency, ignoring the other kinds of amount', () => {
    const request = asApi({
      amount_kind: 'amount_range',
      currency: 'eur',
      amount: '99.00',
      range_minimum: '5.00',
      range_maximum: '50.00',
    });

    expect(request).toMatchObject({ amount_range: { currency: 'EUR', minimum: '5.00', maximum: '50.00' } });
    expect(request).not.toHaveProperty('amount');
  });

  it('takes the filled line-item rows, a quantity of 1 when none is given, and max_payments of a reusable link', () => {
    const request = asApi({
      amount_kind: 'line_items',
      currency: 'EUR',
      item_name_1: 'Mug',
      item_price_1: '8.00',
      item_name_3: 'Tea',
      item_quantity_3: '3',
      item_price_3: '2.50',
      reusable: 'on',
      max_payments: '10',
      payment_methods: ['card', 'ideal'],
    });

    expect(request.line_items?.map((item) => [item.name, item.quantity, item.unit_amount.value])).toEqual([
      ['Mug', 1, '8.00'],
      ['Tea', 3, '2.50'],
    ]);
    expect(request).toMatchObject({ reusable: true, max_payments: 10, payment_methods: ['card', 'ideal'] });
  });

  it("is refused with the API's own pointers when a field is wrong", () => {
    const refused = () =>
      asApi({ amount_kind: 'fixed', currency: 'EUR', amount: '1.005', max_payments: '3' });

    expect(refused).toThrow(ValidationError);
    try {
      refused();
    } catch (error) {
      expect((error as ValidationError).errors.map((field) => field.pointer)).toContain('/amount/value');
    }
  });
});
