import { describe, expect, it } from 'vitest';
import { usePspAdapters } from '../../../../../test/support/psp-adapters.ts';
import { basketLink, orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import { canHoldMandates, type OpensMandate } from '../../../../ports/psp.ts';
import { STRIPE_FAKE } from './fake.ts';

/**
 * The Stripe adapter's typical calls, through the official SDK, against its fake held to Stripe's own OpenAPI
 * document (test/contract/, requests only; docs/testing.md#psp-contract-tests): every request the adapter sends
 * conforms, and the fake refuses, as Stripe does, what the document refuses.
 */
const { connections, fakes, psps } = usePspAdapters('contract', { stripe: STRIPE_FAKE });
const { stripe: stripeConnection } = connections;

describe('the Stripe adapter against stripe/openapi (requests only)', () => {
  it('sends only what the document allows: create, retrieve, expire, refund, read the refund', async () => {
    const plain = await psps.stripe.createSession(sessionRequest(orderLink('10.00'), stripeConnection));
    const basketSession = await psps.stripe.createSession(sessionRequest(basketLink(), stripeConnection));
    expect((await psps.stripe.retrieveSession(basketSession.id)).amount).toEqual({
      value: '50.40',
      currency: 'EUR',
    });
    expect(await psps.stripe.expireSession(plain)).toBe('ended');
    const paid = await psps.stripe.createSession(sessionRequest(orderLink('30.00'), stripeConnection));
    fakes.stripe.completeSession(paid.id);
    const status = await psps.stripe.retrieveSession(paid.id);
    expect(status.state).toBe('succeeded');
    const refund = await psps.stripe.refund({
      refundId: 're_contract000000000000000003',
      linkId: 'pl_contract',
      paymentReference: status.paymentReference as string,
      amount: { value: '5.00', currency: 'EUR' },
    });
    expect((await psps.stripe.retrieveRefund(refund.reference)).state).toBe('pending');
    const calls = fakes.stripe.exchanges.map(
      ({ method, path }) => `${method} ${path.replace(/\/(cs|re)_\w+/, '/$1_…')}`,
    );
    expect(new Set(calls)).toEqual(
      new Set([
        'POST /v1/checkout/sessions',
        'GET /v1/checkout/sessions/cs_…',
        'POST /v1/checkout/sessions/cs_…/expire',
        'POST /v1/refunds',
        'GET /v1/refunds/re_…',
      ]),
    );
    expect(fakes.stripe.violations).toEqual([]);
  });

  it('sends only what the document allows for mandates: the sessions that save a method, a renewal, its read-back', async () => {
    const psp = psps.stripe;
    if (!canHoldMandates(psp)) throw new Error('Stripe holds no mandates');
    const before = fakes.stripe.exchanges.length;
    const opens: OpensMandate = {
      subscriptionId: 'sub_contract0000000000000001',
      withoutCharge: false,
      periodAmount: { value: '9.90', currency: 'EUR' },
      recurring: { interval: 'month', interval_count: 1, trial_days: 14, cycles: 12 },
    };
    const request = { ...sessionRequest(orderLink('9.90'), stripeConnection), opensMandate: opens };
    const paid = await psp.createSession(request);
    const trial = await psp.createSession({
      ...request,
      amount: { value: '0.00', currency: 'EUR' },
      opensMandate: { ...opens, withoutCharge: true },
    });
    fakes.stripe.completeSession(paid.id);
    fakes.stripe.completeSession(trial.id);
    expect(await psp.mandateOf({ id: trial.id, paymentReference: null })).toMatchObject({ state: 'ready' });
    const opened = await psp.mandateOf({ id: paid.id, paymentReference: null });
    if (opened.state !== 'ready') throw new Error('no mandate');
    const charged = await psp.chargeMandate({
      mandate: opened.mandate,
      amount: opens.periodAmount,
      idempotencyKey: 'sub_contract0000000000000001.2.1',
      paymentId: 'pay_contract0000000000000002',
      subscriptionId: opens.subscriptionId,
      period: 2,
      description: 'Membership (period 2)',
    });
    expect(await psp.retrieveCharge(charged.reference as string)).toEqual(charged);
    const calls = fakes.stripe.exchanges
      .slice(before)
      .map(({ method, path }) => `${method} ${path.replace(/\/(cs_test|pi)_\w+/, '/$1_…')}`);
    expect(new Set(calls)).toEqual(
      new Set([
        'POST /v1/checkout/sessions',
        'GET /v1/checkout/sessions/cs_test_…',
        'POST /v1/payment_intents',
        'GET /v1/payment_intents/pi_…',
      ]),
    );
    expect(fakes.stripe.violations).toEqual([]);
  });

  it('refuses a renewal with a parameter its document no longer lists, as Stripe does', async () => {
    const before = fakes.stripe.violations.length;
    const response = await fetch(`${fakes.stripe.url}/v1/payment_intents`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${STRIPE_FAKE.credentials.secret_key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        amount: '990',
        currency: 'eur',
        confirm: 'true',
        'payment_method_types[0]': 'card',
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      code: 'parameter_unknown',
      param: 'payment_method_types',
    });
    expect(fakes.stripe.violations.length - before).toBe(1);
  });

  const create = (params: Record<string, string>) =>
    fetch(`${fakes.stripe.url}/v1/checkout/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${STRIPE_FAKE.credentials.secret_key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        mode: 'payment',
        success_url: 'https://shop.example/thanks',
        'line_items[0][quantity]': '1',
        'line_items[0][price_data][currency]': 'eur',
        'line_items[0][price_data][unit_amount]': '1000',
        'line_items[0][price_data][product_data][name]': 'Tea',
        ...params,
      }).toString(),
    });

  // The document's refusals (an unknown parameter, at any depth; a length; an enum; a type) and the fake's own
  // (what Stripe refuses beyond its document: a line without quantity, metadata keys over 40 or values over 500).
  it.each([
    ['an unknown parameter', { customer_note: 'hi' }, 'customer_note', true],
    ['an unknown parameter of a line', { 'line_items[0][note]': 'hi' }, 'line_items[0][note]', true],
    [
      'a client_reference_id of 201 characters',
      { client_reference_id: 'x'.repeat(201) },
      'client_reference_id',
      true,
    ],
    ['a locale outside its enum', { locale: 'xx' }, 'locale', true],
    ['a quantity that is no integer', { 'line_items[0][quantity]': 'two' }, 'line_items[0][quantity]', true],
    [
      'a line without quantity',
      {
        'line_items[1][price_data][currency]': 'eur',
        'line_items[1][price_data][unit_amount]': '100',
        'line_items[1][price_data][product_data][name]': 'Cup',
      },
      'line_items[1][quantity]',
      false,
    ],
    [
      'a metadata key over 40 characters',
      { [`metadata[${'k'.repeat(41)}]`]: 'v' },
      `metadata[${'k'.repeat(41)}]`,
      false,
    ],
    ['a metadata value over 500 characters', { 'metadata[note]': 'v'.repeat(501) }, 'metadata[note]', false],
  ])('refuses %s with a 400 as Stripe does', async (_, params, param, byDocument) => {
    const before = fakes.stripe.violations.length;
    const response = await create(params);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      param,
    });
    expect(fakes.stripe.violations.length - before).toBe(byDocument ? 1 : 0);
  });
});
