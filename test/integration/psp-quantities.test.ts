import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { paymentRepository } from '../../functions/dependencies.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { postOurForm } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

/**
 * The quantities a buyer picks reach every PSP as the lines of the session request (docs/checkout.md#quantities):
 * each adapter sends the lines as picked, adding up to the amount charged, and each fake refuses lines that do
 * not.
 */
let psps: PspStack<typeof FAKES>;
const keys: Record<string, IssuedApiKey> = {};

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
    keys[provider] = await psps.stack.issueKey(`qty-${provider}`, 'test');
    await psps.connect(`qty-${provider}`, provider);
  }
});
afterAll(() => psps?.stop());

const lines = [
  {
    name: 'Ticket',
    quantity: 1,
    unit_amount: { value: '25.00', currency: 'EUR' },
    tax_rate: '9',
    adjustable_quantity: { enabled: true, minimum: 1, maximum: 10 },
  },
  { name: 'Booking fee', quantity: 1, unit_amount: { value: '2.50', currency: 'EUR' } },
];

async function pickThree(provider: 'stripe' | 'mollie' | 'adyen') {
  const link = await createLink(psps.stack, keys[provider]!.api_key, {
    amount: undefined,
    line_items: lines,
  });
  const posted = await postOurForm(link.checkout_url, 'answers=1&quantity_0=3');
  expect(posted.status).toBe(303);
  const [payment] = await paymentRepository().listOfLink(link.id, 'test');
  expect(payment).toMatchObject({ provider, amount: { value: '77.50' }, quantities: [3, 1] });
  return (await storedLink(link.id)).psp_session!;
}

describe('quantities picked on our page, at each PSP', () => {
  it('go to Stripe as the line items of the Checkout Session', async () => {
    await pickThree('stripe');
    const form = psps.stripe.requests
      .filter((request) => request.path === '/v1/checkout/sessions')
      .at(-1)!.form;
    expect([form['line_items[0][quantity]'], form['line_items[1][quantity]']]).toEqual(['3', '1']);
  });

  it('go to Mollie as lines that add up to the amount', async () => {
    const session = await pickThree('mollie');
    const created = psps.mollie.payments.get(session.id) as unknown as {
      amount: { value: string };
      lines: { quantity: number; totalAmount: { value: string } }[];
    };
    expect(created.amount.value).toBe('77.50');
    expect(created.lines.map((line) => [line.quantity, line.totalAmount.value])).toEqual([
      [3, '75.00'],
      [1, '2.50'],
    ]);
  });

  it('go to Adyen as line items', async () => {
    await pickThree('adyen');
    const body = JSON.parse(psps.adyen.requests.at(-1)?.body ?? '{}');
    expect(body.amount).toEqual({ value: 7750, currency: 'EUR' });
    expect(body.lineItems.map((line: { quantity: number }) => line.quantity)).toEqual([3, 1]);
  });
});
