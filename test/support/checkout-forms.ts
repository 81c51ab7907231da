import { paymentRepository } from '../../functions/dependencies.ts';
import { postOurForm } from './navigate.ts';

// The links that ask before the buyer pays, and the buyer's answers, for the files of the checkout's form
// (test/integration/checkout-forms.test.ts, checkout-form-answers.test.ts).

export const TICKET = {
  name: 'Ticket',
  quantity: 2,
  unit_amount: { value: '25.00', currency: 'EUR' },
  adjustable_quantity: { enabled: true, minimum: 1, maximum: 10 },
};
export const SHIRT = { name: 'Shirt', quantity: 1, unit_amount: { value: '15.00', currency: 'EUR' } };
export const COLLECT = {
  email: 'required',
  phone: 'optional',
  billing_address: 'optional',
  shipping_address: { countries: ['NL', 'BE'] },
};
export const CUSTOM_FIELDS = [
  { key: 'table', label: 'Table number', type: 'numeric', numeric: { maximum_length: 3 } },
  {
    key: 'size',
    label: 'Size',
    type: 'dropdown',
    dropdown: {
      options: [
        { label: 'Small', value: 's' },
        { label: 'Large', value: 'l' },
      ],
    },
  },
  {
    key: 'note',
    label: 'Note',
    type: 'text',
    optional: true,
    text: { minimum_length: 3, maximum_length: 20 },
  },
];

/** The body of a link that asks every question before the buyer pays, changed by `body`. */
export const formLinkBody = (body: Record<string, unknown> = {}) => ({
  amount: undefined,
  line_items: [TICKET, SHIRT],
  collect: COLLECT,
  custom_fields: CUSTOM_FIELDS,
  ...body,
});

/** A buyer's complete, valid answers (as our form posts them). */
export const ANSWERS = {
  answers: '1',
  quantity_0: '3',
  custom_table: '12',
  custom_size: 'l',
  custom_note: '',
  email: 'ada@example.com',
  phone: '06 12345678',
  billing_name: '',
  billing_line1: '',
  billing_city: '',
  billing_postal_code: '',
  billing_country: '',
  shipping_name: 'Ada Lovelace',
  shipping_line1: 'Keizersgracht 1',
  shipping_line2: '',
  shipping_city: 'Amsterdam',
  shipping_postal_code: '1015 CJ',
  shipping_state: '',
  shipping_country: 'NL',
};

/** The buyer posts our form from our own page (as Chromium does under `Referrer-Policy: no-referrer`). */
export function post(
  url: string,
  fields: Record<string, string> | string,
  options: { language?: string; cookie?: string } = {},
) {
  return postOurForm(url, fields, {
    ...(options.cookie ? { cookie: options.cookie } : {}),
    'accept-language': options.language ?? 'en',
  });
}

export const paymentsOf = (id: string) => paymentRepository().listOfLink(id, 'test');
