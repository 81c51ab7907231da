import { describe, expect, it } from 'vitest';
import type { FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { ADYEN_FAKE } from '../../functions/adapters/psp/adyen/test/fake.ts';
import type { FakeMollie } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { newPaymentLink } from '../../functions/domain/payment-link.ts';
import { usePspAdapters } from '../support/psp-adapters.ts';
import { orderLink, sessionRequest } from '../support/psp-fixtures.ts';

/**
 * What the link's options become at each PSP (docs/checkout.md#what-each-psp-receives): each adapter, through its
 * official SDK, against a fake that refuses what the real PSP refuses (values outside its OpenAPI enums, sums
 * that do not add up).
 */
const { connections, fakes, psps } = usePspAdapters('variants', {
  stripe: STRIPE_FAKE,
  mollie: MOLLIE_FAKE,
  adyen: ADYEN_FAKE,
});
const { stripe: stripeConnection, mollie: mollieConnection, adyen: adyenConnection } = connections;

const lastBody = (fake: FakeMollie | FakeAdyen) => JSON.parse(fake.requests.at(-1)?.body ?? '{}');

describe("the buyer's locale at each PSP", () => {
  it.each([
    ['nl', 'nl', 'nl_NL', 'nl-NL'],
    ['nl-BE', 'nl', 'nl_BE', 'nl-BE'],
    ['en-GB', 'en-GB', 'en_GB', 'en-GB'],
    ['de-AT', 'de', 'de_AT', 'de-AT'],
    ['fr', 'fr', 'fr_FR', 'fr-FR'],
    ['es-MX', 'es', 'es_ES', 'es-MX'],
  ])(
    '%s goes to Stripe as %s, to Mollie as %s and to Adyen as %s',
    async (locale, atStripe, atMollie, atAdyen) => {
      await psps.stripe.createSession(
        sessionRequest(orderLink('10.00'), stripeConnection, undefined, locale),
      );
      expect(fakes.stripe.requests.at(-1)?.form.locale).toBe(atStripe);
      await psps.mollie.createSession(
        sessionRequest(orderLink('10.00'), mollieConnection, undefined, locale),
      );
      expect(lastBody(fakes.mollie).locale).toBe(atMollie);
      await psps.adyen.createSession(sessionRequest(orderLink('10.00'), adyenConnection, undefined, locale));
      expect(lastBody(fakes.adyen).shopperLocale).toBe(atAdyen);
    },
  );
});

const basket = () =>
  newPaymentLink(
    { account: 'acme', mode: 'test' },
    {
      line_items: [
        {
          name: 'Espresso beans 1 kg',
          quantity: 2,
          unit_amount: { value: '24.95', currency: 'EUR' },
          tax_rate: '9',
        },
        { name: 'Grinder', quantity: 1, unit_amount: { value: '149', currency: 'EUR' }, tax_rate: '21' },
        { name: 'Gift wrap', quantity: 3, unit_amount: { value: '0.5', currency: 'EUR' } },
      ],
      redirect_url: 'https://shop.example/thanks',
    },
    new Date(),
  );

describe('the amount of the session request at each PSP', () => {
  // The link says 10.00; checkout asks for 7.25 (a buyer's choice): the session charges what it was asked.
  const at = (connection: typeof stripeConnection) => ({
    ...sessionRequest(orderLink('10.00'), connection),
    amount: { value: '7.25', currency: 'EUR' },
  });

  it('is what Stripe, Mollie and Adyen charge, not the link amount', async () => {
    const session = await psps.stripe.createSession(at(stripeConnection));
    expect(fakes.stripe.sessions.get(session.id)?.amount_total).toBe(725);
    await psps.mollie.createSession(at(mollieConnection));
    expect(lastBody(fakes.mollie).amount).toEqual({ currency: 'EUR', value: '7.25' });
    await psps.adyen.createSession(at(adyenConnection));
    expect(lastBody(fakes.adyen).amount).toEqual({ currency: 'EUR', value: 725 });
  });

  it('must be the sum of the lines of a link that has them: nothing reaches the PSP otherwise', async () => {
    const sent = [fakes.stripe.requests.length, fakes.mollie.requests.length, fakes.adyen.requests.length];
    for (const [psp, connection] of [
      [psps.stripe, stripeConnection],
      [psps.mollie, mollieConnection],
      [psps.adyen, adyenConnection],
    ] as const) {
      await expect(
        psp.createSession({
          ...sessionRequest(basket(), connection),
          amount: { value: '200.00', currency: 'EUR' },
        }),
      ).rejects.toThrow(/add up to 200.40 EUR/);
    }
    expect([fakes.stripe.requests.length, fakes.mollie.requests.length, fakes.adyen.requests.length]).toEqual(
      sent,
    );
  });
});

describe('line items at each PSP', () => {
  it('make the amount their sum, worked out by us', () => {
    expect(basket().amount).toEqual({ value: '200.40', currency: 'EUR' });
  });

  it('go to Stripe as line_items with price_data, which Stripe sums to the amount', async () => {
    const session = await psps.stripe.createSession(sessionRequest(basket(), stripeConnection));
    expect(fakes.stripe.requests.at(-1)?.form).toMatchObject({
      'line_items[0][quantity]': '2',
      'line_items[0][price_data][unit_amount]': '2495',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][product_data][name]': 'Espresso beans 1 kg',
      'line_items[1][price_data][unit_amount]': '14900',
      'line_items[2][quantity]': '3',
      'line_items[2][price_data][unit_amount]': '50',
    });
    expect(fakes.stripe.sessions.get(session.id)?.amount_total).toBe(20040);
  });

  it('go to Mollie as lines whose totals and VAT Mollie checks against the amount', async () => {
    await psps.mollie.createSession(sessionRequest(basket(), mollieConnection));
    const body = lastBody(fakes.mollie);
    expect(body.amount).toEqual({ currency: 'EUR', value: '200.40' });
    expect(body.lines).toEqual([
      {
        description: 'Espresso beans 1 kg',
        quantity: 2,
        unitPrice: { currency: 'EUR', value: '24.95' },
        totalAmount: { currency: 'EUR', value: '49.90' },
        vatRate: '9.00',
        vatAmount: { currency: 'EUR', value: '4.12' },
      },
      {
        description: 'Grinder',
        quantity: 1,
        unitPrice: { currency: 'EUR', value: '149.00' },
        totalAmount: { currency: 'EUR', value: '149.00' },
        vatRate: '21.00',
        vatAmount: { currency: 'EUR', value: '25.86' },
      },
      {
        description: 'Gift wrap',
        quantity: 3,
        unitPrice: { currency: 'EUR', value: '0.50' },
        totalAmount: { currency: 'EUR', value: '1.50' },
      },
    ]);
  });

  it('go to Adyen as lineItems with the tax each unit includes', async () => {
    await psps.adyen.createSession(sessionRequest(basket(), adyenConnection));
    const body = lastBody(fakes.adyen);
    expect(body.amount).toEqual({ currency: 'EUR', value: 20040 });
    expect(body.lineItems).toEqual([
      {
        description: 'Espresso beans 1 kg',
        quantity: 2,
        amountIncludingTax: 2495,
        amountExcludingTax: 2289,
        taxAmount: 206,
        taxPercentage: 900,
      },
      {
        description: 'Grinder',
        quantity: 1,
        amountIncludingTax: 14900,
        amountExcludingTax: 12314,
        taxAmount: 2586,
        taxPercentage: 2100,
      },
      { description: 'Gift wrap', quantity: 3, amountIncludingTax: 50, amountExcludingTax: 50, taxAmount: 0 },
    ]);
  });
});

describe('payment methods at each PSP', () => {
  const methods = { paymentMethods: ['ideal', 'card', 'sepa_debit'] as const };

  it('go to Stripe as allowed_payment_method_types', async () => {
    await psps.stripe.createSession({
      ...sessionRequest(orderLink('10.00'), stripeConnection),
      paymentMethods: [...methods.paymentMethods],
    });
    expect(fakes.stripe.requests.at(-1)?.form).toMatchObject({
      'allowed_payment_method_types[0]': 'ideal',
      'allowed_payment_method_types[1]': 'card',
      'allowed_payment_method_types[2]': 'sepa_debit',
    });
  });

  it('go to Mollie as a method list', async () => {
    await psps.mollie.createSession({
      ...sessionRequest(orderLink('10.00'), mollieConnection),
      paymentMethods: [...methods.paymentMethods],
    });
    expect(lastBody(fakes.mollie).method).toEqual(['ideal', 'creditcard', 'directdebit']);
  });

  it('go to Adyen as allowedPaymentMethods', async () => {
    await psps.adyen.createSession({
      ...sessionRequest(orderLink('10.00'), adyenConnection),
      paymentMethods: [...methods.paymentMethods],
    });
    expect(lastBody(fakes.adyen).allowedPaymentMethods).toEqual(['ideal', 'scheme', 'sepadirectdebit']);
  });

  it('are left to the PSP when the link names none', async () => {
    await psps.stripe.createSession(sessionRequest(orderLink('10.00'), stripeConnection));
    expect(
      Object.keys(fakes.stripe.requests.at(-1)?.form ?? {}).some((k) => k.startsWith('allowed_payment')),
    ).toBe(false);
    await psps.mollie.createSession(sessionRequest(orderLink('10.00'), mollieConnection));
    expect(lastBody(fakes.mollie).method).toBeUndefined();
    await psps.adyen.createSession(sessionRequest(orderLink('10.00'), adyenConnection));
    expect(lastBody(fakes.adyen).allowedPaymentMethods).toBeUndefined();
  });
});
