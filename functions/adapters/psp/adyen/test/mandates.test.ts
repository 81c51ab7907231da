import { beforeAll, describe, expect, it } from 'vitest';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest } from '../../../../../test/support/psp-fixtures.ts';
import type { MandateRef } from '../../../../domain/mandates.ts';
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
import { credentials, hmacKey, merchantAccount, testConnection, useFakeAdyen } from './adapter-setup.ts';
import type { FakeAdyen } from './fake.ts';
import type { FakeChargeOutcome } from './fake-mandates.ts';

/**
 * Adyen's mandates through @adyen/api-library against the fake Adyen held to Adyen's document
 * (docs/subscriptions.md#adyen): a payment link that stores the card, the token read back and confirmed, renewals
 * with it under the attempt's key, each decline class, a revoked token, a lost answer resent.
 */
const fake = useFakeAdyen();
let adyen: FakeAdyen;
beforeAll(() => {
  adyen = fake.adyen;
});

type Holder = Psp & HoldsMandates;
async function holder(factory = fake.factory): Promise<Holder> {
  const psp = await factory.create(testConnection);
  if (!canHoldMandates(psp)) throw new Error('the Adyen adapter holds no mandates');
  return psp;
}

let subscriptions = 0;
function subscriptionRequest(overrides: Partial<SessionRequest['opensMandate']> = {}): SessionRequest {
  subscriptions += 1;
  const link = { ...orderLink('9.90'), description: 'Membership' };
  return {
    ...sessionRequest(link, testConnection),
    opensMandate: {
      subscriptionId: `sub_adyenmandates${String(subscriptions).padStart(10, '0')}`,
      withoutCharge: false,
      periodAmount: { value: '9.90', currency: 'EUR' },
      recurring: { interval: 'month', interval_count: 1, trial_days: null, cycles: null },
      ...overrides,
    },
  };
}

/** A subscription's first payment made at Adyen, its AUTHORISATION verified by `psp`; its mandate read back. */
async function subscribed(psp: Holder) {
  const request = subscriptionRequest();
  const session = await psp.createSession(request);
  const item = adyen.pay(session.id);
  await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
  const opened = await psp.mandateOf({ id: session.id, paymentReference: item.pspReference });
  if (opened.state !== 'ready') throw new Error(`no mandate: ${JSON.stringify(opened)}`);
  return { request, session, item, mandate: opened.mandate };
}

let charges = 0;
function chargeOf(mandate: MandateRef, value = '9.90'): MandateCharge {
  charges += 1;
  return {
    mandate,
    amount: { value, currency: 'EUR' },
    idempotencyKey: `sub_adyen.${charges}.1`,
    paymentId: `pay_adyenrenewal${String(charges).padStart(12, '0')}`,
    subscriptionId: 'sub_adyen',
    period: charges,
    description: 'Membership (period 2)',
  };
}

describe('Adyen mandates: the first payment stores the card', () => {
  it('opens a payment link that stores the payment method under the payment id, with the terms', async () => {
    const psp = await holder();
    const request = subscriptionRequest({
      recurring: { interval: 'month', interval_count: 3, trial_days: null, cycles: 4 },
    });
    const session = await psp.createSession(request);
    expect(adyen.paymentLinks.get(session.id)).toMatchObject({
      storePaymentMethodMode: 'enabled',
      recurringProcessingModel: 'Subscription',
      shopperReference: request.paymentId,
      allowedPaymentMethods: ['scheme'],
      description: 'Membership: 9.90 EUR every 3 months, 4 times in all. Cancel through the merchant.',
      metadata: {
        link_id: request.link.id,
        payment_id: request.paymentId,
        subscription_id: request.opensMandate?.subscriptionId,
      },
    });
    // An update link's buyer agreed to the terms already: its page says what the new method is for.
    const update = await psp.createSession(subscriptionRequest({ recurring: null }));
    expect(adyen.paymentLinks.get(update.id)?.description).toBe(
      'Membership: later periods are charged to this payment method.',
    );
    expect(adyen.violations).toEqual([]);
  });

  it('reads the token back from Adyen and names its customer, card and connection', async () => {
    const psp = await holder();
    const { request, session } = await subscribed(psp);
    const [token] = [...adyen.mandates.tokens.values()].filter(
      (stored) => stored.shopperReference === request.paymentId,
    );
    const opened = await psp.mandateOf({ id: session.id, paymentReference: null });
    expect(opened).toEqual({
      state: 'ready',
      mandate: {
        connection_id: testConnection.id,
        provider: 'adyen',
        customer: request.paymentId,
        reference: token?.id,
        method: 'scheme',
        display: 'Visa •••• 1111',
      },
    });
    const listed = adyen.requests.filter((sent) => sent.path === '/v72/storedPaymentMethods');
    expect(listed.length).toBeGreaterThan(0);
    expect(adyen.violations).toEqual([]);
  });

  it('finds the token without the notification (another instance, the sweeper): Adyen lists it', async () => {
    const psp = await holder();
    const session = await psp.createSession(subscriptionRequest());
    adyen.pay(session.id);
    const elsewhere = await holder(
      factoryOf(PSP_FACTORIES.adyen, { secrets: fake.secrets, apiUrl: adyen.url }),
    );
    const opened = await elsewhere.mandateOf({ id: session.id, paymentReference: null });
    expect(opened.state).toBe('ready');
  });

  it('never takes the token an unsigned field names unless Adyen lists it for the link', async () => {
    const psp = await holder();
    const other = await subscribed(psp);
    const session = await psp.createSession(subscriptionRequest());
    const item = adyen.pay(session.id);
    const own = item.additionalData?.['tokenization.storedPaymentMethodId'];
    // The HMAC does not cover additionalData: a tampered item can name another subscription's token.
    item.additionalData = {
      ...item.additionalData,
      'tokenization.storedPaymentMethodId': other.mandate.reference,
    };
    await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
    const opened = await psp.mandateOf({ id: session.id, paymentReference: item.pspReference });
    expect(opened).toMatchObject({ state: 'ready', mandate: { reference: own } });
  });

  it('takes, of several tokens Adyen lists for the link, the one its AUTHORISATION names; none unnamed', async () => {
    const psp = await holder();
    const { request, session, mandate } = await subscribed(psp);
    const own = adyen.mandates.tokens.get(mandate.reference);
    if (!own) throw new Error('no token at the fake');
    adyen.mandates.tokens.set('EARLIERTOKEN0001', { ...own, id: 'EARLIERTOKEN0001' });
    expect(own.shopperReference).toBe(request.paymentId);
    const named = await psp.mandateOf({ id: session.id, paymentReference: null });
    expect(named).toMatchObject({ state: 'ready', mandate: { reference: mandate.reference } });
    const elsewhere = await holder(
      factoryOf(PSP_FACTORIES.adyen, { secrets: fake.secrets, apiUrl: adyen.url }),
    );
    expect((await elsewhere.mandateOf({ id: session.id, paymentReference: null })).state).toBe('none');
  });

  it('is pending before the link is paid, and none for a link that stores nothing', async () => {
    const psp = await holder();
    const session = await psp.createSession(subscriptionRequest());
    expect((await psp.mandateOf({ id: session.id, paymentReference: null })).state).toBe('pending');
    const plain = await psp.createSession(sessionRequest(orderLink('5.00'), testConnection));
    adyen.pay(plain.id);
    expect((await psp.mandateOf({ id: plain.id, paymentReference: null })).state).toBe('none');
  });

  it('refuses a trial and a session whose methods Adyen cannot store, without calling Adyen', async () => {
    const psp = await holder();
    const before = adyen.requests.length;
    await expect(psp.createSession(subscriptionRequest({ withoutCharge: true }))).rejects.toThrow(
      PspRefusalError,
    );
    const idealOnly = { ...subscriptionRequest(), paymentMethods: ['ideal' as const] };
    await expect(psp.createSession(idealOnly)).rejects.toThrow(PspRefusalError);
    expect(adyen.requests.length).toBe(before);
  });
});

/** The `/payments` request of a renewal, as Adyen's document asks it for a stored card charged off-session. */
const renewalBody = (charge: MandateCharge, mandate: MandateRef, minorUnits: number) => ({
  amount: { currency: 'EUR', value: minorUnits },
  merchantAccount,
  reference: charge.paymentId,
  paymentMethod: { type: 'scheme', storedPaymentMethodId: mandate.reference },
  shopperReference: mandate.customer,
  shopperInteraction: 'ContAuth',
  recurringProcessingModel: 'Subscription',
  returnUrl: 'http://localhost',
});

describe('Adyen mandates: renewals', () => {
  it('charges the token off-session (ContAuth, Subscription) under the attempt’s key', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    const charge = chargeOf(mandate, '12.50');
    const answer = await psp.chargeMandate(charge);
    expect(answer).toEqual({
      state: 'succeeded',
      reference: expect.stringMatching(/^[0-9A-Z]{16}$/),
      amount: { value: '12.50', currency: 'EUR' },
    });
    expect(await psp.retrieveCharge(answer.state === 'succeeded' ? answer.reference : '')).toEqual(answer);
    const sent = adyen.requests.at(-1);
    expect(sent).toMatchObject({ method: 'POST', path: '/v72/payments' });
    expect(sent?.headers['idempotency-key']).toBe(charge.idempotencyKey);
    expect(JSON.parse(sent?.body ?? '')).toEqual({
      ...renewalBody(charge, mandate, 1250),
      metadata: { subscription_id: charge.subscriptionId, period: String(charge.period) },
    });
    expect(adyen.violations).toEqual([]);
  });

  it('charges once per key: the same attempt sent again (concurrently too) is one payment, one answer', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    const charge = chargeOf(mandate);
    const before = adyen.mandates.renewals.length;
    const answers = await Promise.all([1, 2, 3, 4].map(() => psp.chargeMandate(charge)));
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(adyen.mandates.renewals.length).toBe(before + 1);
  });

  it('sends a lost answer’s charge again under its key: Adyen answers as it did, nothing is charged twice', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    const charge = chargeOf(mandate);
    // The first request reached Adyen and charged; its answer never came back.
    adyen.outage = 'none';
    const lost = await fetch(`${adyen.url}/v72/payments`, {
      method: 'POST',
      headers: {
        'x-api-key': credentials.api_key,
        'idempotency-key': charge.idempotencyKey,
        'content-type': 'application/json',
      },
      body: JSON.stringify(renewalBody(charge, mandate, 990)),
    });
    const first = (await lost.json()) as { pspReference: string };
    const made = adyen.mandates.renewals.length;
    expect(await psp.chargeMandate(charge)).toMatchObject({
      state: 'succeeded',
      reference: first.pspReference,
    });
    expect(adyen.mandates.renewals.length).toBe(made);
  });

  it('throws an outage (the same key is sent again later) when Adyen fails, charging nothing', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    const before = adyen.mandates.renewals.length;
    adyen.outage = 'error';
    try {
      await expect(psp.chargeMandate(chargeOf(mandate))).rejects.toThrow(PspOutageError);
    } finally {
      adyen.outage = 'none';
    }
    expect(adyen.mandates.renewals.length).toBe(before);
  });

  it.each<[string, FakeChargeOutcome, string, string, boolean]>([
    ['not enough balance', 'soft_decline', 'soft', 'adyen:12', true],
    ['an expired card', 'hard_decline', 'hard', 'adyen:6', false],
    ['authentication required', 'authentication_required', 'authentication_required', 'adyen:38', true],
    [
      'a 3-D Secure redirect',
      { resultCode: 'RedirectShopper' },
      'authentication_required',
      'adyen:RedirectShopper',
      true,
    ],
    [
      'a refusal the card network says never to retry (advice 03)',
      {
        resultCode: 'Refused',
        refusalReasonCode: '12',
        refusalReason: 'Not enough balance',
        additionalData: { merchantAdviceCode: '03: Do not try again' },
      },
      'hard',
      'adyen:12',
      false,
    ],
    [
      'a lost card, told only by the raw acquirer result',
      {
        resultCode: 'Refused',
        refusalReasonCode: '2',
        refusalReason: 'Refused',
        additionalData: { refusalReasonRaw: '41 : Lost card' },
      },
      'hard',
      'adyen:2',
      false,
    ],
    ['a revoked token (422 800 Contract not found)', 'revoked', 'hard', 'adyen:800', false],
  ])('answers %s as a decline, not a throw', async (_, outcome, declineClass, code, usable) => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    adyen.mandates.nextCharge(outcome);
    const answer = await psp.chargeMandate(chargeOf(mandate));
    expect(answer).toMatchObject({
      state: 'failed',
      decline: { class: declineClass, code },
      mandateUsable: usable,
    });
    expect(adyen.violations).toEqual([]);
  });

  it('declines for good a charge Adyen refuses as invalid; takes 704 (the key still in progress) as no answer', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    adyen.mandates.nextCharge({ status: 422, errorCode: '137', message: 'Invalid amount specified' });
    expect(await psp.chargeMandate(chargeOf(mandate))).toEqual({
      state: 'failed',
      reference: null,
      decline: { class: 'hard', code: 'adyen:137', message: 'Invalid amount specified' },
      mandateUsable: true,
    });
    adyen.mandates.nextCharge({
      status: 422,
      errorCode: '704',
      message: 'Request already processed or in progress',
    });
    await expect(psp.chargeMandate(chargeOf(mandate))).rejects.toThrow(PspOutageError);
    expect(adyen.violations).toEqual([]);
  });

  it('keeps a revoked token revoked: the next charge is declined too', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    adyen.mandates.disableToken(mandate.reference);
    expect(await psp.chargeMandate(chargeOf(mandate))).toMatchObject({
      state: 'failed',
      reference: null,
      mandateUsable: false,
    });
  });

  it('leaves a charge Adyen received pending until its AUTHORISATION tells the outcome', async () => {
    const psp = await holder();
    const { mandate } = await subscribed(psp);
    for (const outcome of ['succeeded', 'failed'] as const) {
      adyen.mandates.nextCharge('pending');
      const answer = await psp.chargeMandate(chargeOf(mandate));
      if (answer.state !== 'pending' || !answer.reference) throw new Error(`not pending: ${answer.state}`);
      expect(await psp.retrieveCharge(answer.reference)).toEqual(answer);
      const item = adyen.mandates.renewalItem(answer.reference, outcome);
      if (outcome === 'failed') item.reason = 'Not enough balance';
      const notified = await psp.verifyNotification(adyen.notification([item], { hmacKey }), {});
      expect(notified).toEqual([
        expect.objectContaining({ type: expect.stringMatching(/^AUTHORISATION/), sessionId: null }),
      ]);
      expect(await psp.retrieveCharge(answer.reference)).toMatchObject(
        outcome === 'succeeded'
          ? { state: 'succeeded', amount: { value: '9.90', currency: 'EUR' } }
          : { state: 'failed', decline: { class: 'soft', code: 'adyen:12' }, mandateUsable: true },
      );
    }
  });
});
