import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import { factoryOf } from '../../../../../test/support/psp-fakes.ts';
import { orderLink, sessionRequest, storedConnection } from '../../../../../test/support/psp-fixtures.ts';
import type { MandateRef } from '../../../../domain/mandates.ts';
import { newPaymentId } from '../../../../domain/payment.ts';
import { newPaymentLink } from '../../../../domain/payment-link.ts';
import {
  type HoldsMandates,
  type MandateCharge,
  PspOutageError,
  PspRefusalError,
  type SessionRequest,
} from '../../../../ports/psp.ts';
import { PSP_FACTORIES } from '../../factories.ts';
import type { PaypalPsp } from '../adapter.ts';
import { type FakePaypal, startFakePaypal } from './fake.ts';

/**
 * PayPal's mandates (functions/adapters/psp/paypal/mandates.ts), through the official SDK, against the fake held
 * to PayPal's Orders and Vault documents: the first period's order vaults the wallet, renewals are orders paid
 * with the vault id, once per key, and PayPal's refusals come back as declines of their class.
 */
const credentials = {
  client_id: 'AmandatesPaypalClient_0123456789',
  client_secret: 'EmandatesPaypalSecret_0123456789',
  webhook_id: '5MN62833K0123456A',
  environment: 'sandbox',
};
const connection = storedConnection('paypal', 'test', 'pc_paypalMandates0000000000');
let fake: FakePaypal;
let psp: PaypalPsp & HoldsMandates;
let untrust: () => void;

beforeAll(async () => {
  untrust = trustFakePspCertificate();
  fake = await startFakePaypal({
    clientId: credentials.client_id,
    clientSecret: credentials.client_secret,
    webhookId: credentials.webhook_id,
  });
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(credentials)]]);
  psp = await factoryOf<PaypalPsp & HoldsMandates>(PSP_FACTORIES.paypal, {
    secrets,
    apiUrl: fake.url,
  }).create(connection);
});
afterEach(() => {
  fake.outage = 'none';
  expect(fake.violations).toEqual([]);
});
afterAll(async () => {
  await fake?.stop();
  untrust?.();
});

const period = { value: '9.90', currency: 'EUR' };
const MONTHLY = { interval: 'month', interval_count: 1, trial_days: null, cycles: null } as const;

/** The first period's session of a monthly subscription link. */
function subscriptionSession(withoutCharge = false): SessionRequest {
  const link = newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: period, description: 'Coffee club', recurring: MONTHLY },
    new Date(),
  );
  const opensMandate = {
    subscriptionId: 'sub_paypal1',
    withoutCharge,
    periodAmount: period,
    recurring: MONTHLY,
  };
  return { ...sessionRequest(link, connection), opensMandate };
}

/** A buyer pays the first period on PayPal's page and we capture it: PayPal vaults the wallet. */
async function vaulted(): Promise<{ mandate: MandateRef; sessionId: string }> {
  const request = subscriptionSession();
  const session = await psp.createSession(request);
  fake.approve(session.id, { email_address: 'member@example.com' });
  expect((await psp.captureSession({ id: session.id, paymentId: request.paymentId })).state).toBe(
    'succeeded',
  );
  const opened = await psp.mandateOf({ id: session.id, paymentReference: null });
  if (opened.state !== 'ready') throw new Error(`no mandate: ${JSON.stringify(opened)}`);
  return { mandate: opened.mandate, sessionId: session.id };
}

let attempts = 0;
const renewal = (mandate: MandateRef, changes: Partial<MandateCharge> = {}): MandateCharge => {
  attempts += 1;
  return {
    mandate,
    amount: period,
    idempotencyKey: `sub_paypal1.${attempts}.1`,
    paymentId: newPaymentId(new Date()),
    subscriptionId: 'sub_paypal1',
    period: attempts,
    description: `Coffee club (period ${attempts})`,
    ...changes,
  };
};

const renewalsOf = (mandate: MandateRef) =>
  fake.vault.renewals.filter((candidate) => candidate.token === mandate.reference);

describe('the first period', () => {
  it('asks PayPal to vault the wallet for the merchant, with the terms shown to the payer', async () => {
    const request = subscriptionSession();
    await psp.createSession(request);

    const sent = fake.requests.findLast((candidate) => candidate.path === '/v2/checkout/orders');
    const body = JSON.parse(sent?.body ?? '{}');
    expect(body.payment_source.paypal.attributes.vault).toEqual({
      store_in_vault: 'ON_SUCCESS',
      usage_type: 'MERCHANT',
      customer_type: 'CONSUMER',
      usage_pattern: 'RECURRING_PREPAID',
      description: 'Coffee club: 9.90 EUR every month, until you cancel',
    });
    // A one-off link's order vaults nothing.
    await psp.createSession(sessionRequest(orderLink('12.00'), connection));
    const oneOff = fake.requests.findLast((candidate) => candidate.path === '/v2/checkout/orders');
    expect(JSON.parse(oneOff?.body ?? '{}').payment_source.paypal.attributes).toBeUndefined();
  });

  it('is refused for a trial: PayPal cannot vault without a purchase, and the buyer would be charged', async () => {
    const before = fake.orders.size;
    await expect(psp.createSession(subscriptionSession(true))).rejects.toBeInstanceOf(PspRefusalError);
    expect(fake.orders.size).toBe(before);
  });

  it('once captured, gives the vaulted token under its PayPal customer, as the captured order shows it', async () => {
    const { mandate } = await vaulted();

    const token = fake.vault.tokens.get(mandate.reference);
    expect(mandate).toEqual({
      connection_id: connection.id,
      provider: 'paypal',
      customer: token?.customer,
      reference: token?.id,
      method: 'paypal',
      display: 'PayPal (member@example.com)',
    });
    // The order says it is vaulted: the vault is not asked.
    expect(fake.requests.some((request) => request.path.startsWith('/v3/vault/'))).toBe(false);
  });

  it('is pending while PayPal is still vaulting the wallet, and ready once the vault has the token', async () => {
    const request = subscriptionSession();
    const session = await psp.createSession(request);
    fake.approve(session.id);
    fake.vault.vaultLater();
    await psp.captureSession({ id: session.id, paymentId: request.paymentId });

    expect(await psp.mandateOf({ id: session.id, paymentReference: null })).toEqual({ state: 'pending' });
    fake.vault.finishVaulting();
    const opened = await psp.mandateOf({ id: session.id, paymentReference: null });
    expect(opened).toMatchObject({ state: 'ready', mandate: { method: 'paypal' } });
    expect(fake.requests.at(-1)?.path).toMatch(/^\/v3\/vault\/payment-tokens\//);
  });

  it('gives none for an order that vaulted nothing', async () => {
    const request = sessionRequest(orderLink('12.00'), connection);
    const session = await psp.createSession(request);
    fake.approve(session.id);
    await psp.captureSession({ id: session.id, paymentId: request.paymentId });
    expect(await psp.mandateOf({ id: session.id, paymentReference: null })).toMatchObject({ state: 'none' });
  });
});

describe('a renewal', () => {
  it('is an order paid with the vault id, captured on creation, at the period’s amount', async () => {
    const { mandate } = await vaulted();
    const charge = renewal(mandate);

    const result = await psp.chargeMandate(charge);

    const [made] = renewalsOf(mandate);
    expect(result).toEqual({ state: 'succeeded', reference: made?.orderId, amount: period });
    const sent = fake.requests.findLast((candidate) => candidate.path === '/v2/checkout/orders');
    expect(sent?.headers['paypal-request-id']).toBe(charge.idempotencyKey);
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({
      payment_source: { paypal: { vault_id: mandate.reference } },
      purchase_units: [{ invoice_id: charge.paymentId, custom_id: 'sub_paypal1', amount: { value: '9.90' } }],
    });
  });

  it('sent again with its key is one charge at PayPal, answered as the first', async () => {
    const { mandate } = await vaulted();
    const charge = renewal(mandate);

    const answers = await Promise.all([psp.chargeMandate(charge), psp.chargeMandate(charge)]);
    const again = await psp.chargeMandate(charge);

    expect(renewalsOf(mandate)).toHaveLength(1);
    expect(answers[1]).toEqual(answers[0]);
    expect(again).toEqual(answers[0]);
    // A retry is a new attempt with a new key: charged anew.
    expect((await psp.chargeMandate(renewal(mandate))).state).toBe('succeeded');
    expect(renewalsOf(mandate)).toHaveLength(2);
  });

  it('whose answer was lost is sent again with its key and charged once', async () => {
    const { mandate } = await vaulted();
    const charge = renewal(mandate);
    fake.vault.loseNextAnswer();

    await expect(psp.chargeMandate(charge)).rejects.toBeInstanceOf(PspOutageError);
    expect(renewalsOf(mandate)).toHaveLength(1);
    expect(await psp.chargeMandate(charge)).toMatchObject({ state: 'succeeded' });
    expect(renewalsOf(mandate)).toHaveLength(1);
  });

  it('of a payment charged already (DUPLICATE_INVOICE_ID, its key expired) is no decline: its outcome is unknown', async () => {
    const { mandate } = await vaulted();
    const charged = renewal(mandate);
    await psp.chargeMandate(charged);

    const resent = psp.chargeMandate(renewal(mandate, { paymentId: charged.paymentId }));

    await expect(resent).rejects.toBeInstanceOf(PspOutageError);
    await expect(resent).rejects.toThrow(/DUPLICATE_INVOICE_ID/);
    expect(renewalsOf(mandate)).toHaveLength(1);
  });

  it('while PayPal is down throws an outage and charges nothing', async () => {
    const { mandate } = await vaulted();
    fake.outage = 'error';

    await expect(psp.chargeMandate(renewal(mandate))).rejects.toBeInstanceOf(PspOutageError);
    expect(renewalsOf(mandate)).toHaveLength(0);
  });
});

describe('a declined renewal', () => {
  it('refused by the funding source (INSTRUMENT_DECLINED) is soft: the token stays usable', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge('soft_decline');

    expect(await psp.chargeMandate(renewal(mandate))).toEqual({
      state: 'failed',
      reference: null,
      decline: {
        class: 'soft',
        code: 'paypal:INSTRUMENT_DECLINED',
        message: expect.stringContaining('INSTRUMENT_DECLINED'),
      },
      mandateUsable: true,
    });
    expect((await psp.chargeMandate(renewal(mandate))).state).toBe('succeeded');
  });

  it('of a closed PayPal account is hard: the token is never charged again', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge('hard_decline');

    expect(await psp.chargeMandate(renewal(mandate))).toMatchObject({
      state: 'failed',
      decline: { class: 'hard', code: 'paypal:PAYER_ACCOUNT_LOCKED_OR_CLOSED' },
      mandateUsable: false,
    });
  });

  it('that PayPal wants the payer to approve asks for authentication, naming the order', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge('authentication_required');

    const result = await psp.chargeMandate(renewal(mandate));

    expect(result).toMatchObject({
      state: 'failed',
      reference: renewalsOf(mandate)[0]?.orderId,
      decline: { class: 'authentication_required', code: 'paypal:PAYER_ACTION_REQUIRED' },
      mandateUsable: true,
    });
  });

  it('refused by the merchant’s own PayPal settings is hard for this charge, and the token stays usable', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge({ issue: 'PAYEE_BLOCKED_TRANSACTION' });

    expect(await psp.chargeMandate(renewal(mandate))).toMatchObject({
      state: 'failed',
      decline: { class: 'hard', code: 'paypal:PAYEE_BLOCKED_TRANSACTION' },
      mandateUsable: true,
    });
  });

  it('with too many attempts (MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED) is soft, for the schedule to retry', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge({ issue: 'MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED' });

    expect(await psp.chargeMandate(renewal(mandate))).toMatchObject({
      state: 'failed',
      decline: { class: 'soft', code: 'paypal:MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED' },
      mandateUsable: true,
    });
  });

  it('on a token the payer removed (404) is hard and the mandate unusable', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge('revoked');

    expect(await psp.chargeMandate(renewal(mandate))).toMatchObject({
      state: 'failed',
      reference: null,
      decline: { class: 'hard', code: 'paypal:INVALID_RESOURCE_ID' },
      mandateUsable: false,
    });
    expect(renewalsOf(mandate)).toHaveLength(0);
  });
});

describe('a pending renewal', () => {
  it('under review is pending, then read back as PayPal settles it', async () => {
    const { mandate } = await vaulted();
    fake.vault.nextCharge('pending');
    const first = await psp.chargeMandate(renewal(mandate));
    fake.vault.nextCharge('pending');
    const second = await psp.chargeMandate(renewal(mandate));
    const [one, two] = renewalsOf(mandate).map((made) => made.orderId as string);
    expect(first).toEqual({ state: 'pending', reference: one });
    expect(await psp.retrieveCharge(one as string)).toEqual({ state: 'pending', reference: one });

    fake.vault.settle(one as string, 'succeeded');
    fake.vault.settle(two as string, 'failed');

    expect(second).toEqual({ state: 'pending', reference: two });
    expect(await psp.retrieveCharge(one as string)).toEqual({
      state: 'succeeded',
      reference: one,
      amount: period,
    });
    expect(await psp.retrieveCharge(two as string)).toMatchObject({
      state: 'failed',
      decline: { class: 'soft', code: 'paypal:DECLINED' },
      mandateUsable: true,
    });
  });
});
