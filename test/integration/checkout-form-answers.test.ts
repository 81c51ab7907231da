import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentRepository, sandboxSessionStore } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { browser } from '../support/buyers.ts';
import { ANSWERS, formLinkBody, paymentsOf, post, TICKET } from '../support/checkout-forms.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { addConnection } from '../support/connections.ts';
import { navigate } from '../support/navigate.ts';
import { expectDocumented } from '../support/openapi-check.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * The answers of the checkout page's "before you pay" form (docs/checkout.md#buyer-details) through the checkout's
 * other paths: a buyer who corrects them, two buyers of one reusable link, routing on the amount picked, another
 * provider after a decline, a buyer-chosen amount. The form itself: test/integration/checkout-forms.test.ts.
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
