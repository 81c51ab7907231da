import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../functions/domain/errors.ts';
import type { PageLanguage } from '../../functions/domain/locale.ts';
import { createPaymentLinkRequest } from '../../functions/http/api/schemas.ts';
import { createRequestOf, filledItemRows } from '../../functions/http/console/link-form.ts';
import { errorsByInput } from '../../functions/http/console/link-questions.ts';
import { validate } from '../../functions/http/validate.ts';

const asApi = (fields: Record<string, string | string[]>, language: PageLanguage = 'en') => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of [value].flat()) form.append(name, one);
  return validate(createPaymentLinkRequest('test', false), createRequestOf(form, language));
};

describe("the console's create form, as the API's create request", () => {
  it("reads amounts as the console's language writes them, and leaves what it cannot read to the API", () => {
    const german = asApi({ currency: 'EUR', amount: '1.234,50' }, 'de');
    const french = asApi(
      { amount_kind: 'line_items', currency: 'EUR', item_name_1: 'Tee', item_price_1: '1\u202f234,5' },
      'fr',
    );
    const readAsTyped = () => asApi({ currency: 'EUR', amount: '12.345' }, 'en');

    expect(german.amount).toEqual({ value: '1234.50', currency: 'EUR' });
    expect(french.line_items?.[0]?.unit_amount).toEqual({ value: '1234.5', currency: 'EUR' });
    expect(readAsTyped).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/amount/value' })] }),
    );
  });

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

  it('asks the buyer what the form says: details, questions of the filled slots, and adjustable quantities', () => {
    const request = asApi({
      amount_kind: 'line_items',
      currency: 'EUR',
      item_name_2: 'Ticket',
      item_price_2: '20.00',
      item_adjustable_2: 'on',
      item_maximum_2: '6',
      collect_email: 'required',
      collect_phone: '',
      collect_billing_address: 'optional',
      collect_shipping_countries: 'nl, be',
      custom_2_type: 'dropdown',
      custom_2_key: 'size',
      custom_2_label: 'Size',
      custom_2_optional: 'on',
      custom_2_options: 'S: Small\nL',
      custom_3_type: 'numeric',
      custom_3_key: 'vat',
      custom_3_label: 'VAT number',
      custom_3_maximum_length: '12',
    });

    expect(request.collect).toEqual({
      email: 'required',
      billing_address: 'optional',
      shipping_address: { countries: ['NL', 'BE'] },
    });
    expect(request.custom_fields).toMatchObject([
      {
        key: 'size',
        type: 'dropdown',
        optional: true,
        dropdown: {
          options: [
            { value: 'S', label: 'Small' },
            { value: 'L', label: 'L' },
          ],
        },
      },
      { key: 'vat', type: 'numeric', numeric: { maximum_length: 12 } },
    ]);
    expect(request.line_items?.[0]?.adjustable_quantity).toEqual({ enabled: true, minimum: 1, maximum: 6 });
  });

  it("puts the API's errors of questions and quantities at the inputs they came from", () => {
    const fields = {
      amount_kind: 'line_items',
      currency: 'EUR',
      item_name_3: 'Ticket',
      item_price_3: '20.00',
      item_adjustable_3: 'on',
      item_minimum_3: '5',
      item_maximum_3: '2',
      collect_shipping_countries: 'XX',
      custom_2_type: 'text',
      custom_2_key: 'bad key',
      custom_2_label: 'Note',
    };
    const form = new URLSearchParams(fields);

    let errors: ValidationError['errors'] = [];
    try {
      asApi(fields);
    } catch (error) {
      errors = (error as ValidationError).errors;
    }
    const byInput = errorsByInput(errors, form, filledItemRows(form));

    expect([...byInput.keys()].sort()).toEqual([
      'collect_shipping_countries',
      'custom_2_key',
      'item_minimum_3',
    ]);
  });
});
