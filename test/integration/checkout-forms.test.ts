import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxSessionStore } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { ANSWERS, formLinkBody, paymentsOf, post } from '../support/checkout-forms.ts';
import { createLink, sandboxNotification, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS, navigate } from '../support/navigate.ts';
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

const formLink = (body: Record<string, unknown> = {}, key = acme.api_key) =>
  createLink(stack, key, formLinkBody(body));

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
