import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { browser } from '../support/buyers.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate, postOurForm } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * The "before you pay" form of the checkout page (docs/checkout.md#buyer-details, #custom-fields, #quantities):
 * asked before any session opens, checked on the server, refused with a 422 page (never a 500), and recorded
 * on the payment, its list and its events.
 */
let stack: TestStack;
let acme: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  acme = await stack.issueKey('forms', 'test');
});
afterAll(async () => {
  await stack?.stop();
});

const TICKET = {
  name: 'Ticket',
  quantity: 2,
  unit_amount: { value: '25.00', currency: 'EUR' },
  adjustable_quantity: { enabled: true, minimum: 1, maximum: 10 },
};
const SHIRT = { name: 'Shirt', quantity: 1, unit_amount: { value: '15.00', currency: 'EUR' } };
const COLLECT = {
  email: 'required',
  phone: 'optional',
  billing_address: 'optional',
  shipping_address: { countries: ['NL', 'BE'] },
};
const CUSTOM_FIELDS = [
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

const formLink = (body: Record<string, unknown> = {}, key = acme.api_key) =>
  createLink(stack, key, {
    amount: undefined,
    line_items: [TICKET, SHIRT],
    collect: COLLECT,
    custom_fields: CUSTOM_FIELDS,
    ...body,
  });

/** A buyer's complete, valid answers (as our form posts them). */
const ANSWERS = {
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
function post(
  url: string,
  fields: Record<string, string> | string,
  options: { language?: string; cookie?: string } = {},
) {
  return postOurForm(url, fields, {
    ...(options.cookie ? { cookie: options.cookie } : {}),
    'accept-language': options.language ?? 'en',
  });
}

const paymentsOf = (id: string) => paymentRepository().listOfLink(id, 'test');

describe('the checkout page of a link that asks first', () => {
  it('shows one script-free form with every question, labelled and marked, opening nothing', async () => {
    const link = await formLink();
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${link.checkout_url}" novalidate>`);
    expect(page.text).not.toContain('<script');
    expect(page.headers['content-security-policy']).toMatch(/form-action 'self';/);
    for (const name of ['quantity_0', 'custom_table', 'custom_size', 'custom_note', 'email', 'phone']) {
      expect(page.text).toContain(`<label for="${name}">`);
      expect(page.text).toContain(`id="${name}" name="${name}"`);
    }
    // A fixed line has no input; the shipping countries are the link's, named in the buyer's language.
    expect(page.text).not.toContain('quantity_1');
    expect(page.text).toMatch(
      /<select id="shipping_country"[^>]*>\s*<option value="">Choose a country<\/option>\s*<option value="BE">Belgium<\/option>\s*<option value="NL">Netherlands<\/option>\s*<\/select>/,
    );
    expect(page.text).toContain(
      '<label for="email">E-mail address <span class="muted">(required)</span></label>',
    );
    expect(page.text).toContain(
      '<label for="phone">Phone number <span class="muted">(optional)</span></label>',
    );
    expect(page.text).toContain('aria-describedby="phone-hint"');
    expect(await paymentsOf(link.id)).toEqual([]);
    expect((await storedLink(link.id)).psp_session).toBeNull();
  });

  it('speaks the buyer’s language, country names included', async () => {
    const link = await formLink();
    const page = await httpRequest(link.checkout_url, {
      headers: { ...NAVIGATION_HEADERS, 'accept-language': 'nl' },
    });
    expect(page.text).toContain('<h1>Voordat u betaalt</h1>');
    expect(page.text).toContain('<option value="NL">Nederland</option>');
    expect(page.text).toContain('E-mailadres <span class="muted">(verplicht)</span>');
  });

  it('refuses each wrong answer with a 422 page saying why at the field, keeping the answers, opening nothing', async () => {
    const link = await formLink();
    const page = await post(link.checkout_url, {
      ...ANSWERS,
      quantity_0: '11',
      custom_table: '12a',
      custom_size: 'xl',
      custom_note: 'no',
      email: 'ada@',
      phone: '12',
      shipping_postal_code: 'ABC',
      billing_line1: 'Rue Neuve 1',
    });
    expect(page.status).toBe(422);
    expect(page.text).toContain('<title>Error: Before you pay</title>');
    const refused = {
      quantity_0: 'Choose a quantity within the bounds shown.',
      custom_table: 'Use digits only.',
      custom_size: 'Choose one of the options.',
      custom_note: 'This answer is too short.',
      email: 'Enter an e-mail address such as name@example.com.',
      phone: 'Enter a valid phone number, with its country code.',
      shipping_postal_code: 'Enter the postal code as it is written in this country.',
      billing_name: 'Please fill this in.',
      billing_city: 'Please fill this in.',
      billing_country: 'Please fill this in.',
    };
    for (const [field, message] of Object.entries(refused)) {
      expect(page.text, field).toContain(`<p id="${field}-error" class="error">${message}</p>`);
      expect(page.text, field).toMatch(
        new RegExp(`id="${field}"[^>]*aria-describedby="[^"]*${field}-error"[^>]*aria-invalid="true"`),
      );
    }
    expect(page.text).toContain('value="Keizersgracht 1"');
    expect(page.text).toContain('value="12a"');
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('refuses a shipping country the link does not ship to, and a required answer left out', async () => {
    const link = await formLink();
    const page = await post(link.checkout_url, {
      ...ANSWERS,
      shipping_country: 'DE',
      shipping_postal_code: '10115',
      email: '',
      custom_size: '',
    });
    expect(page.status).toBe(422);
    expect(page.text).toContain('We do not ship to this country. Please choose another.');
    expect(page.text).toContain('<p id="email-error" class="error">Please fill this in.</p>');
    expect(page.text).toContain('<p id="custom_size-error" class="error">Please fill this in.</p>');
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('opens the session at the total of the picked quantities, sends the PSP those lines and records the answers', async () => {
    const link = await formLink();
    const posted = await post(link.checkout_url, ANSWERS);
    expect(posted.status).toBe(303);
    expect(posted.headers.location).toBe(link.checkout_url);
    const [payment] = await paymentsOf(link.id);
    expect(payment).toMatchObject({
      status: 'pending',
      amount: { value: '90.00', currency: 'EUR' },
      quantities: [3, 1],
      custom_fields: [
        { key: 'table', label: 'Table number', type: 'numeric', value: '12' },
        { key: 'size', label: 'Size', type: 'dropdown', value: 'l' },
      ],
      buyer: {
        email: 'ada@example.com',
        // Read in the country of the address given: stored as E.164.
        phone: '+31612345678',
        name: 'Ada Lovelace',
        shipping_address: {
          line1: 'Keizersgracht 1',
          city: 'Amsterdam',
          postal_code: '1015 CJ',
          country: 'NL',
        },
      },
    });
    expect(payment?.buyer).not.toHaveProperty('billing_address');
    const session = (await storedLink(link.id)).psp_session!;
    expect((await sandboxSessionStore().get(session.id))?.amount).toEqual({
      value: '90.00',
      currency: 'EUR',
    });

    // The open session is shown again; the form is not asked again.
    const again = await navigate(link.checkout_url);
    expect(again.text).toContain(`content="0;url=${session.url}"`);

    const listed = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: acme.api_key });
    expect(listed.body.data[0]).toMatchObject({
      quantities: [3, 1],
      buyer: { email: 'ada@example.com', phone: '+31612345678' },
      custom_fields: [
        { key: 'table', value: '12' },
        { key: 'size', value: 'l' },
      ],
    });
    expectDocumented('get', '/v1/payment-links/{id}/payments', listed);
  });

  it('carries the answers into the payment_link.paid event, not into the link', async () => {
    const link = await formLink();
    await post(link.checkout_url, ANSWERS);
    const session = (await storedLink(link.id)).psp_session!;
    await sandboxSessionStore().complete(session.id, 'sbpay_forms00000000000000000', new Date());
    const notified = await stack.request('POST', `/psp/sandbox/notifications/${session.connection_id}`, {
      ...sandboxNotification({ session_id: session.id, link_id: link.id }),
    });
    expect(notified.body.outcome).toBe('paid');
    const events = await stack.request('GET', `/v1/payment-links/${link.id}/events`, { key: acme.api_key });
    const paidId = events.body.data.find((event: { type: string }) => event.type === 'payment_link.paid').id;
    const paid = (await stack.request('GET', `/v1/events/${paidId}`, { key: acme.api_key })).body;
    expect(paid.data.payment).toMatchObject({
      amount: { value: '90.00', currency: 'EUR' },
      quantities: [3, 1],
      buyer: { email: 'ada@example.com' },
      custom_fields: [{ key: 'table' }, { key: 'size' }],
    });
    const read = await stack.request('GET', `/v1/payment-links/${link.id}`, { key: acme.api_key });
    expect(read.body.payment).not.toHaveProperty('buyer');
    expect(read.body.payment.amount).toEqual({ value: '90.00', currency: 'EUR' });
  });

  it('answers a form another site sent as a preview: it answers nothing and opens nothing', async () => {
    const link = await formLink();
    const page = await httpRequest(link.checkout_url, {
      method: 'POST',
      headers: {
        ...NAVIGATION_HEADERS,
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: String(new URLSearchParams(ANSWERS)),
    });
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<form method="post"');
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('never answers hostile forms with a 500: each is asked again or refused on the page', async () => {
    const link = await formLink();
    const hostile = [
      'answers=1&quantity_0=99999999999999999999',
      'answers=1&quantity_0=-1',
      'answers=1&quantity_0=1e1&quantity_0=2',
      'answers=1&quantity_0=2.5',
      `answers=1&custom_note=${'\u{1F600}'.repeat(300)}`,
      `answers=1&email=${'a'.repeat(300)}%40example.com`,
      'answers=1&shipping_country=%3Cscript%3E&shipping_line1=x',
      'answers=1&phone=%2B%2B%2B&email=%00',
      'answers&custom_size[]=l&__proto__=x&constructor=y',
      '%E0%A4%A',
      `answers=1&${'x='.repeat(9000)}`,
    ];
    for (const body of hostile) {
      const page = await post(link.checkout_url, body);
      expect([200, 422], body.slice(0, 40)).toContain(page.status);
      expect(page.text).not.toContain('<script>');
    }
    expect(await paymentsOf(link.id)).toEqual([]);
  });

  it('asks nothing more of a link that asks nothing: the buyer goes straight on to the PSP', async () => {
    const link = await createLink(stack, acme.api_key);
    const page = await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session!;
    expect(page.text).toContain(`content="0;url=${session.url}"`);
    const [payment] = await paymentsOf(link.id);
    expect(payment).not.toHaveProperty('buyer');
    expect(payment).not.toHaveProperty('quantities');
  });
});

describe('a buyer who corrects their answers', () => {
  it('pays with the corrected e-mail address: the session at the first is ended and replaced', async () => {
    const link = await formLink();
    expect((await post(link.checkout_url, { ...ANSWERS, email: 'typo@exmaple.com' })).status).toBe(303);
    const [typo] = await paymentsOf(link.id);
    // The same answers again: the open session is shown again, nothing is replaced.
    expect((await post(link.checkout_url, { ...ANSWERS, email: 'typo@exmaple.com' })).status).toBe(303);
    expect(await paymentsOf(link.id)).toHaveLength(1);

    expect((await post(link.checkout_url, { ...ANSWERS, email: 'right@example.com' })).status).toBe(303);
    const payments = await paymentsOf(link.id);
    const pending = payments.filter((payment) => payment.status === 'pending');
    expect(pending).toHaveLength(1);
    expect(pending[0]?.buyer).toMatchObject({ email: 'right@example.com' });
    expect((await storedLink(link.id)).psp_session?.payment_id).toBe(pending[0]?.id);
    expect(payments.find((payment) => payment.id === typo?.id)).toMatchObject({
      status: 'canceled',
      ended_unused: true,
    });
  });

  it('pays for the quantities picked last on a reusable link, even at the same total', async () => {
    const seat = { ...TICKET, name: 'Seat', quantity: 1 };
    const link = await formLink({ reusable: true, line_items: [TICKET, seat] });
    const buyer = browser('127.0.0.2');
    expect(
      (await buyer.answer(link.checkout_url, { ...ANSWERS, quantity_0: '2', quantity_1: '1' })).status,
    ).toBe(303);
    const first = buyer.payment;
    expect(
      (await buyer.answer(link.checkout_url, { ...ANSWERS, quantity_0: '1', quantity_1: '2' })).status,
    ).toBe(303);
    expect(buyer.payment).not.toBe(first);
    const corrected = await paymentRepository().get(link.id, 'test', buyer.payment ?? '');
    expect(corrected).toMatchObject({ status: 'pending', quantities: [1, 2], amount: { value: '75.00' } });
    const session = await sandboxSessionStore().get(corrected?.session_id ?? '');
    expect(session?.amount).toEqual({ value: '75.00', currency: 'EUR' });
    expect(await paymentRepository().get(link.id, 'test', first ?? '')).toMatchObject({
      status: 'canceled',
      quantities: [2, 1],
    });
  });
});

describe('a reusable link paid by two buyers with different answers', () => {
  it('records each buyer’s own answers and details on their own payment', async () => {
    const link = await formLink({ reusable: true, max_payments: 5 });
    const first = await post(link.checkout_url, ANSWERS);
    const second = await post(link.checkout_url, {
      ...ANSWERS,
      quantity_0: '1',
      custom_table: '7',
      custom_size: 's',
      custom_note: 'by the window',
      email: 'grace@example.org',
      phone: '+32 470 12 34 56',
      shipping_name: 'Grace Hopper',
      shipping_line1: 'Rue Neuve 1',
      shipping_city: 'Bruxelles',
      shipping_postal_code: '1000',
      shipping_country: 'BE',
    });
    expect([first.status, second.status]).toEqual([303, 303]);
    const listed = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: acme.api_key });
    const byEmail = Object.fromEntries(
      listed.body.data.map((payment: { buyer: { email: string } }) => [payment.buyer.email, payment]),
    );
    expect(byEmail['ada@example.com']).toMatchObject({ amount: { value: '90.00' }, quantities: [3, 1] });
    expect(byEmail['grace@example.org']).toMatchObject({
      amount: { value: '40.00' },
      quantities: [1, 1],
      buyer: { phone: '+32470123456', name: 'Grace Hopper', shipping_address: { country: 'BE' } },
      custom_fields: [
        { key: 'table', value: '7' },
        { key: 'size', value: 's' },
        { key: 'note', value: 'by the window' },
      ],
    });
    expectDocumented('get', '/v1/payment-links/{id}/payments', listed);
  });
});

describe('routing on the amount, and the details a PSP page cannot ask', () => {
  let shop: IssuedApiKey;

  beforeAll(async () => {
    shop = await stack.issueKey('forms-router', 'test');
    // Stripe's page asks the e-mail itself; the sandbox's asks nothing, so our page must.
    const stripe = await addConnection({
      account: 'forms-router',
      mode: 'test',
      provider: 'stripe',
      name: 'stripe',
      credentials: { secret_key: 'sk_test_forms', webhook_secret: 'whsec_forms' },
    });
    const sandbox = await addConnection({
      account: 'forms-router',
      mode: 'test',
      provider: 'sandbox',
      name: 'big',
    });
    const put = await stack.request('PUT', '/v1/routing', {
      key: shop.api_key,
      body: {
        rules: [
          {
            name: 'large',
            when: { currency: ['EUR'], amount_min: '100.00' },
            // biome-ignore lint/suspicious/noThenProperty: the routing document's own field (PUT /v1/routing)
            then: { priority: [sandbox.id] },
          },
        ],
        default: [stripe.id],
      },
    });
    expect(put.status).toBe(200);
  });

  const quantitiesOnly = () =>
    formLink(
      { line_items: [{ ...TICKET, quantity: 1 }], collect: { email: 'required' }, custom_fields: undefined },
      shop.api_key,
    );

  it('asks no e-mail when the amount shown goes to a page that asks it, and asks it when the picked total goes elsewhere', async () => {
    const link = await quantitiesOnly();
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="quantity_0"');
    expect(page.text).not.toContain('id="email"');

    // Five tickets are routed to the sandbox, whose page cannot ask the e-mail: the form asks it, opening nothing.
    const more = await post(link.checkout_url, { answers: '1', quantity_0: '5' });
    expect(more.status).toBe(200);
    expect(more.text).toContain('id="email"');
    expect(more.text).toContain('value="5"');
    expect(await paymentsOf(link.id)).toEqual([]);

    const answered = await post(link.checkout_url, {
      answers: '1',
      quantity_0: '5',
      email: 'ada@example.com',
    });
    expect(answered.status).toBe(303);
    const [payment] = await paymentsOf(link.id);
    expect(payment).toMatchObject({
      provider: 'sandbox',
      amount: { value: '125.00' },
      quantities: [5],
      buyer: { email: 'ada@example.com' },
    });
  });

  it('refuses on the form a total that no connection can take, in the buyer’s language', async () => {
    const link = await formLink(
      {
        line_items: [
          {
            ...TICKET,
            quantity: 1,
            unit_amount: { value: '0.10', currency: 'EUR' },
            adjustable_quantity: { enabled: true, minimum: 1, maximum: 9 },
          },
        ],
        collect: undefined,
        custom_fields: undefined,
      },
      shop.api_key,
    );
    // 0.30 EUR is below Stripe's minimum charge: nothing is asked of Stripe, the buyer picks again.
    const page = await post(link.checkout_url, { answers: '1', quantity_0: '3' }, { language: 'de' });
    expect(page.status).toBe(422);
    expect(page.text).toContain(
      'Dieser Gesamtbetrag kann hier nicht bezahlt werden. Bitte wählen Sie andere Mengen.',
    );
    expect(await paymentsOf(link.id)).toEqual([]);
  });
});

describe('another payment provider after a declined attempt', () => {
  it('is carried through the form: the answers open the session at the other connection', async () => {
    const key = await stack.issueKey('forms-via', 'test');
    const first = await addConnection({
      account: 'forms-via',
      mode: 'test',
      provider: 'sandbox',
      name: 'first',
    });
    const other = await addConnection({
      account: 'forms-via',
      mode: 'test',
      provider: 'sandbox',
      name: 'other',
    });
    const link = await formLink({}, key.api_key);
    expect((await post(link.checkout_url, ANSWERS)).status).toBe(303);
    const session = (await storedLink(link.id)).psp_session!;
    expect(session.connection_id).toBe(first.id);
    const declined = await fetch(`${stack.baseUrl}/sandbox/checkout/${session.id}/decline`, {
      method: 'POST',
    });
    expect(declined.status).toBe(200);

    const back = await navigate(`${link.checkout_url}?canceled=1`);
    expect(back.text).toContain(`${link.checkout_url}?via=next`);
    const asked = await navigate(`${link.checkout_url}?via=next`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('<input type="hidden" name="via" value="next">');

    expect((await post(link.checkout_url, { ...ANSWERS, via: 'next' })).status).toBe(303);
    expect((await storedLink(link.id)).psp_session?.connection_id).toBe(other.id);
  });
});

describe('a buyer-chosen amount with questions', () => {
  it('asks the amount and the questions in one form, and opens the session at the amount with the answers', async () => {
    const link = await createLink(stack, acme.api_key, {
      amount: undefined,
      amount_range: { currency: 'EUR', minimum: '5.00', maximum: '500.00', suggested: '25.00' },
      custom_fields: [{ key: 'student', label: 'Student id', type: 'numeric' }],
    });
    const page = await navigate(link.checkout_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="amount" name="amount"');
    expect(page.text).toContain('value="25.00"');
    expect(page.text).toContain('<label for="custom_student">Student id');

    const refused = await post(link.checkout_url, { answers: '1', amount: '4', custom_student: '' });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain(
      '<p id="amount-error" class="error">Enter an amount between €5.00 and €500.00.</p>',
    );
    expect(refused.text).toContain('<p id="custom_student-error" class="error">Please fill this in.</p>');
    // The amount form alone (as the page of an unpaid attempt sends it) is asked again with the questions.
    const amountOnly = await post(link.checkout_url, { amount: '30' });
    expect([amountOnly.status, amountOnly.text.includes('id="custom_student"')]).toEqual([200, true]);
    expect(amountOnly.text).toContain('value="30"');
    expect(await paymentsOf(link.id)).toEqual([]);

    expect(
      (await post(link.checkout_url, { answers: '1', amount: '30', custom_student: '0042' })).status,
    ).toBe(303);
    const [payment] = await paymentsOf(link.id);
    expect(payment).toMatchObject({
      amount: { value: '30.00', currency: 'EUR' },
      custom_fields: [{ key: 'student', label: 'Student id', type: 'numeric', value: '0042' }],
    });
    expect(payment).not.toHaveProperty('quantities');
  });
});
