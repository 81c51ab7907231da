// @module-tag waits: Mollie's SDK pauses 2 s between its own retries of a 5xx; a hang waits out the call budget (test/support/sequencer.ts)
import { MollieApiError, type MollieClient } from '@mollie/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeoutFor } from '../../../../../test/support/eventually.ts';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import {
  basketLink,
  orderLink,
  sessionRequest,
  storedConnection,
} from '../../../../../test/support/psp-fixtures.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../../../domain/call-budgets.ts';
import type { MandateRef } from '../../../../domain/mandates.ts';
import type { PaymentMethod } from '../../../../domain/payment-methods.ts';
import {
  canHoldMandates,
  type HoldsMandates,
  type MandateCharge,
  type Psp,
  PspOutageError,
  PspRefusalError,
  type SessionRequest,
} from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import { mollie as mollieDescriptor } from '../descriptor.ts';
import { MollieMandates } from '../mandates.ts';
import { type FakeMollie, startFakeMollie } from './fake.ts';

/**
 * Mollie's mandates through the adapter and the official `@mollie/api-client`, against the fake held to Mollie's
 * document: a `first` payment of a customer of its own, the mandate it leaves, `recurring` payments on it under
 * the attempt's key, and each of Mollie's answers classed (docs/subscriptions.md#mollie).
 */
const key = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';
const connection = storedConnection('mollie', 'test', 'pc_molliemandates000000000000');
let mollie: FakeMollie;
let psp: Psp & HoldsMandates;
let untrust: () => void;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  mollie = await startFakeMollie({ apiKeys: [key] });
  const secrets = new Map([[connection.secret_name as string, JSON.stringify({ api_key: key })]]);
  const built = await factoryOf(PSP_FACTORIES.mollie, { secrets, apiUrl: mollie.apiEndpoint }).create(
    connection,
  );
  if (!canHoldMandates(built)) throw new Error('The Mollie adapter holds no mandates');
  psp = built;
});
afterAll(async () => {
  await mollie.stop();
  untrust();
});

/** Mollie's methods whose first payment leaves a mandate, in the order of the descriptor's `methods`. */
const LEAVE_MANDATES = {
  card: 'creditcard',
  ideal: 'ideal',
  bancontact: 'bancontact',
  paypal: 'paypal',
  eps: 'eps',
};

let sequence = 0;
const nextId = (prefix: string) => `${prefix}_molliemandates${String(++sequence).padStart(12, '0')}`;

/** A subscription link's session: 9.90 a month, or a trial that charges nothing now. */
function mandateRequest(
  options: { withoutCharge?: boolean; methods?: PaymentMethod[] } = {},
): SessionRequest {
  const link = { ...orderLink('9.90'), description: 'Membership' };
  const withoutCharge = options.withoutCharge ?? false;
  return {
    ...sessionRequest(link, connection, nextId('pay')),
    amount: { value: withoutCharge ? '0.00' : '9.90', currency: 'EUR' },
    paymentMethods: options.methods ?? null,
    opensMandate: {
      subscriptionId: nextId('sub'),
      withoutCharge,
      periodAmount: { value: '9.90', currency: 'EUR' },
      recurring: { interval: 'month', interval_count: 1, trial_days: withoutCharge ? 14 : null, cycles: 12 },
    },
  };
}

/** A mandate set up by a paid first payment (`method` as the buyer paid). */
async function setUpMandate(method: 'creditcard' | 'ideal' = 'creditcard'): Promise<MandateRef> {
  const session = await psp.createSession(mandateRequest());
  mollie.mandates.payFirst(session.id, method);
  const opened = await psp.mandateOf({ id: session.id, paymentReference: session.id });
  if (opened.state !== 'ready') throw new Error(`no mandate: ${JSON.stringify(opened)}`);
  return opened.mandate;
}

const charge = (mandate: MandateRef, idempotencyKey = nextId('sub'), value = '9.90'): MandateCharge => ({
  mandate,
  amount: { value, currency: 'EUR' },
  idempotencyKey,
  paymentId: nextId('pay'),
  subscriptionId: 'sub_molliemandates',
  period: 2,
  description: 'Membership (period 2)',
});

describe('a session that opens a Mollie mandate', () => {
  it('is a first payment of a customer of its own, offering only methods that leave a mandate, its description the terms', async () => {
    const request = mandateRequest();
    const session = await psp.createSession(request);

    const [customer, payment] = mollie.requests.slice(-2);
    expect(customer).toMatchObject({ method: 'POST', path: '/v2/customers' });
    expect(customer?.headers['idempotency-key']).toBe(`${request.paymentId}.customer`);
    expect(JSON.parse(customer?.body ?? '')).toEqual({
      metadata: { subscription_id: request.opensMandate?.subscriptionId },
    });
    const body = JSON.parse(payment?.body ?? '');
    expect(body).toMatchObject({
      amount: { currency: 'EUR', value: '9.90' },
      sequenceType: 'first',
      customerId: expect.stringMatching(/^cst_/),
      method: Object.values(LEAVE_MANDATES),
      description: 'Membership: EUR 9.90 every month, 12 times in all; cancel any time through the seller',
      metadata: { payment_id: request.paymentId },
    });
    expect(mollie.payments.get(session.id)?.customerId).toBe(body.customerId);
    expect(mollie.violations).toEqual([]);
  });

  it('leaves out the methods that leave no mandate, and is refused when none of the link’s can', async () => {
    await psp.createSession(mandateRequest({ methods: ['klarna', 'ideal', 'sepa_debit', 'applepay'] }));
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '').method).toEqual(['ideal']);

    const before = mollie.requests.length;
    await expect(psp.createSession(mandateRequest({ methods: ['klarna', 'przelewy24'] }))).rejects.toThrow(
      PspRefusalError,
    );
    // Refused before Mollie is asked: no customer is left behind.
    expect(mollie.requests.length).toBe(before);
  });

  it('sets up a trial with a card payment of nothing, which Mollie takes from cards only', async () => {
    const session = await psp.createSession(mandateRequest({ withoutCharge: true }));
    expect(JSON.parse(mollie.requests.at(-1)?.body ?? '')).toMatchObject({
      amount: { currency: 'EUR', value: '0.00' },
      method: ['creditcard'],
      description: expect.stringContaining('first charge after a 14-day free trial'),
    });
    mollie.setStatus(session.id, 'paid');
    expect((await psp.mandateOf({ id: session.id, paymentReference: session.id })).state).toBe('ready');

    await expect(
      psp.createSession(mandateRequest({ withoutCharge: true, methods: ['ideal', 'bancontact'] })),
    ).rejects.toThrow(/card/);
  });

  it("sends a trial's payment of nothing without the link's lines, which are what each period charges", async () => {
    const basket = basketLink();
    const request = mandateRequest({ withoutCharge: true });
    await psp.createSession({ ...request, link: basket });
    const body = JSON.parse(mollie.requests.at(-1)?.body ?? '');
    expect(body.amount).toEqual({ currency: 'EUR', value: '0.00' });
    expect(body.lines).toBeUndefined();
  });

  it('opens no mandate on a one-off session: no customer, no sequence', async () => {
    await psp.createSession(sessionRequest(orderLink('10.00'), connection));
    const body = JSON.parse(mollie.requests.at(-1)?.body ?? '');
    expect(body.customerId).toBeUndefined();
    expect(body.sequenceType).toBeUndefined();
  });
});

describe('the mandate a Mollie first payment left (mandateOf)', () => {
  it('is pending until the payment is paid, then the card mandate the paid payment names', async () => {
    const session = await psp.createSession(mandateRequest());
    const customer = mollie.payments.get(session.id)?.customerId;
    expect(await psp.mandateOf({ id: session.id, paymentReference: null })).toEqual({ state: 'pending' });

    mollie.setStatus(session.id, 'paid');
    expect(await psp.mandateOf({ id: session.id, paymentReference: session.id })).toEqual({
      state: 'ready',
      mandate: {
        connection_id: connection.id,
        provider: 'mollie',
        customer,
        reference: mollie.payments.get(session.id)?.mandateId,
        method: 'creditcard',
        display: 'Mastercard •••• 6787',
      },
    });
  });

  it("is a SEPA Direct Debit mandate after iDEAL, shown by its account's last four only", async () => {
    const mandate = await setUpMandate('ideal');
    expect(mandate).toMatchObject({ method: 'directdebit', display: 'SEPA Direct Debit •••• 4321' });
  });

  it('is ready while Mollie still confirms it (pending, which Mollie charges), none once invalid', async () => {
    const session = await psp.createSession(mandateRequest());
    mollie.mandates.payFirst(session.id, 'bancontact');
    const held = mollie.mandates.mandates.get(String(mollie.payments.get(session.id)?.mandateId));
    if (!held) throw new Error('no mandate');
    held.status = 'pending';
    const opened = () => psp.mandateOf({ id: session.id, paymentReference: session.id });
    expect(await opened()).toMatchObject({ state: 'ready', mandate: { reference: held.id } });
    mollie.mandates.revokeAtBank(held.id);
    expect(await opened()).toMatchObject({ state: 'none' });
  });

  it("is read from the customer's mandates when the paid payment does not name it yet", async () => {
    const session = await psp.createSession(mandateRequest());
    mollie.setStatus(session.id, 'paid');
    const payment = mollie.payments.get(session.id);
    const reference = payment?.mandateId;
    delete payment?.mandateId;
    const opened = await psp.mandateOf({ id: session.id, paymentReference: session.id });
    expect(opened).toMatchObject({ state: 'ready', mandate: { reference } });
  });

  it('is none after a failed or canceled first payment, and for a one-off payment', async () => {
    const failed = await psp.createSession(mandateRequest());
    mollie.setStatus(failed.id, 'failed');
    expect(await psp.mandateOf({ id: failed.id, paymentReference: null })).toMatchObject({ state: 'none' });

    // A mandate Mollie left behind a first payment that ended canceled is no consent.
    const canceled = await psp.createSession(mandateRequest());
    mollie.mandates.payFirst(canceled.id, 'ideal');
    mollie.setStatus(canceled.id, 'canceled');
    expect(await psp.mandateOf({ id: canceled.id, paymentReference: null })).toMatchObject({ state: 'none' });

    const oneOff = await psp.createSession(sessionRequest(orderLink('10.00'), connection));
    mollie.setStatus(oneOff.id, 'paid');
    expect(await psp.mandateOf({ id: oneOff.id, paymentReference: oneOff.id })).toMatchObject({
      state: 'none',
    });
  });
});

describe('renewals on a Mollie mandate (chargeMandate)', () => {
  it('is a recurring payment naming the customer and the mandate, under the attempt’s key', async () => {
    const mandate = await setUpMandate();
    const renewal = charge(mandate);
    const answer = await psp.chargeMandate(renewal);

    const reference = mollie.mandates.chargesOf(mandate.reference)[0]?.id;
    expect(answer).toEqual({ state: 'succeeded', reference, amount: { value: '9.90', currency: 'EUR' } });
    const request = mollie.requests.at(-1);
    expect(request?.headers['idempotency-key']).toBe(renewal.idempotencyKey);
    expect(JSON.parse(request?.body ?? '')).toEqual({
      amount: { currency: 'EUR', value: '9.90' },
      description: 'Membership (period 2)',
      redirectUrl: 'http://localhost',
      customerId: mandate.customer,
      mandateId: mandate.reference,
      sequenceType: 'recurring',
      metadata: { payment_id: renewal.paymentId, subscription_id: 'sub_molliemandates', period: '2' },
    });
    expect(mollie.violations).toEqual([]);
  });

  it('charges once for a key sent again, even at the same time, and answers each alike', async () => {
    const mandate = await setUpMandate();
    const renewal = charge(mandate);
    const answers = await Promise.all([1, 2, 3].map(() => psp.chargeMandate(renewal)));
    expect(new Set(answers.map((answer) => answer.reference)).size).toBe(1);
    expect(await psp.chargeMandate(renewal)).toEqual(answers[0]);
    expect(mollie.mandates.chargesOf(mandate.reference)).toHaveLength(1);
  });

  it.each([
    ['soft_decline', 'soft', 'mollie:insufficient_funds', true],
    ['hard_decline', 'hard', 'mollie:card_expired', false],
    ['authentication_required', 'authentication_required', 'mollie:authentication_required', true],
  ] as const)('classes a card %s: %s (%s)', async (outcome, declineClass, code, mandateUsable) => {
    const mandate = await setUpMandate();
    mollie.mandates.nextCharge(outcome);
    const answer = await psp.chargeMandate(charge(mandate));
    expect(answer).toMatchObject({
      state: 'failed',
      reference: mollie.mandates.chargesOf(mandate.reference)[0]?.id,
      decline: { class: declineClass, code, message: expect.any(String) },
      mandateUsable,
    });
  });

  it('declines a revoked mandate hard, without a payment: Mollie answers no suitable mandate', async () => {
    const mandate = await setUpMandate();
    mollie.mandates.nextCharge('revoked');
    const expected = {
      state: 'failed',
      reference: null,
      decline: { class: 'hard', code: 'mollie:no_suitable_mandate' },
      mandateUsable: false,
    };
    expect(await psp.chargeMandate(charge(mandate))).toMatchObject(expected);
    // Revoked stays revoked: the next attempt is refused alike.
    expect(await psp.chargeMandate(charge(mandate))).toMatchObject(expected);
    expect(mollie.mandates.chargesOf(mandate.reference)).toEqual([]);
  });

  it('collects a direct debit over days: pending, then settled by retrieveCharge, paid or failed by its bank', async () => {
    const mandate = await setUpMandate('ideal');
    const collected = await psp.chargeMandate(charge(mandate));
    expect(collected).toMatchObject({ state: 'pending', reference: expect.stringMatching(/^tr_/) });
    const reference = collected.reference as string;
    expect(await psp.retrieveCharge(reference)).toEqual(collected);
    mollie.mandates.settle(reference, 'paid');
    expect(await psp.retrieveCharge(reference)).toMatchObject({ state: 'succeeded', reference });

    const funds = (await psp.chargeMandate(charge(mandate))).reference as string;
    mollie.mandates.settle(funds, 'failed', 'AM04');
    expect(await psp.retrieveCharge(funds)).toMatchObject({
      state: 'failed',
      decline: { class: 'soft', code: 'mollie:AM04' },
      mandateUsable: true,
    });

    // The buyer revoked the mandate at their bank: Mollie's next debit fails MD01.
    const revoked = (await psp.chargeMandate(charge(mandate))).reference as string;
    mollie.mandates.settle(revoked, 'failed', 'MD01');
    expect(await psp.retrieveCharge(revoked)).toMatchObject({
      state: 'failed',
      decline: { class: 'hard', code: 'mollie:MD01' },
      mandateUsable: false,
    });
  });

  it("takes Mollie's 404 and 410, beyond its document, as hard; its 409, 429 and 400 as no answer, sent again", async () => {
    // The fake cannot answer what the document does not list: the SDK's error for such an answer stands in.
    const mandate = await setUpMandate();
    const answering = (statusCode: number) => {
      const create = () =>
        Promise.reject(new MollieApiError('The mandate is no longer available', { statusCode }));
      return new MollieMandates(
        mollieDescriptor,
        { payments: { create } } as unknown as MollieClient,
        connection,
        'https://pay.example',
      );
    };
    for (const statusCode of [404, 410]) {
      expect(await answering(statusCode).chargeMandate(charge(mandate))).toMatchObject({
        state: 'failed',
        decline: { class: 'hard', code: 'mollie:no_suitable_mandate' },
        mandateUsable: false,
      });
    }
    for (const statusCode of [400, 409, 429]) {
      await expect(answering(statusCode).chargeMandate(charge(mandate))).rejects.toThrow(PspOutageError);
    }
  });

  it('is made once when its answer was lost: the same key sent again gets the payment made', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    const mandate = await setUpMandate();
    const renewal = charge(mandate);
    mollie.mandates.loseNextAnswer();
    await expect(psp.chargeMandate(renewal)).rejects.toThrow(PspOutageError);
    const made = mollie.mandates.chargesOf(mandate.reference);
    expect(made).toHaveLength(1);

    expect(await psp.chargeMandate(renewal)).toMatchObject({ state: 'succeeded', reference: made[0]?.id });
    expect(mollie.mandates.chargesOf(mandate.reference)).toHaveLength(1);
  });

  it('throws an outage, charging nothing, while Mollie answers 5xx', {
    timeout: timeoutFor(PSP_CALL_TIMEOUT_MS),
  }, async () => {
    const mandate = await setUpMandate();
    mollie.outage = 'error';
    try {
      await expect(psp.chargeMandate(charge(mandate))).rejects.toThrow(PspOutageError);
    } finally {
      mollie.outage = 'none';
    }
    expect(mollie.mandates.chargesOf(mandate.reference)).toEqual([]);
  });
});
