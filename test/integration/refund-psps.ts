import { afterAll, beforeAll, expect } from 'vitest';
import { ADYEN_FAKE, type FakeAdyen } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

type RefundPsp = 'stripe' | 'mollie' | 'adyen';

/**
 * A stack behind the fake Stripe, Mollie and Adyen with an account and a connection of each, and the calls the
 * refund-outcome files make (test/integration/refund-outcomes.test.ts, refund-sweeps.test.ts). Called once at
 * the top of a file: it starts the stack before the file's tests and stops it after them.
 */
export function refundPsps() {
  let psps: PspStack<typeof FAKES> | undefined;
  const keys: Record<RefundPsp | 'other', IssuedApiKey> = {} as never;
  const connections: Record<RefundPsp, PspConnection> = {} as never;

  beforeAll(async () => {
    psps = await startPspStack({ fakes: FAKES });
    for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
      keys[provider] = await psps.stack.issueKey(`${provider}refunds`, 'test');
      connections[provider] = await psps.connect(`${provider}refunds`, provider);
    }
    keys.other = await psps.stack.issueKey('otherrefunds', 'test');
  });
  afterAll(() => psps?.stop());

  const started = (): PspStack<typeof FAKES> => {
    if (!psps) throw new Error('the refund stack has not started');
    return psps;
  };

  const notify = (provider: RefundPsp, rawBody: string, headers: Record<string, string>) =>
    started().stack.request('POST', `/psp/${provider}/notifications/${connections[provider].id}`, {
      rawBody,
      headers,
    });
  const notifyStripe = (event: { body: string; signature: string }) =>
    notify('stripe', event.body, { 'content-type': 'application/json', 'stripe-signature': event.signature });
  const notifyMollie = (paymentId: string) =>
    notify('mollie', started().mollie.webhookBody(paymentId), {
      'content-type': 'application/x-www-form-urlencoded',
    });
  const notifyAdyen = (item: Parameters<FakeAdyen['notification']>[0][number]) =>
    notify('adyen', started().adyen.notification([item], { hmacKey: ADYEN_FAKE.credentials.hmac_key }), {
      'content-type': 'application/json',
    });

  /** A link of the provider's account, paid at that PSP and recorded through its notification. */
  async function paidLink(provider: RefundPsp, value = '20.00') {
    const { stack, stripe, mollie, adyen } = started();
    const link = await createLink(stack, keys[provider].api_key, { amount: { value, currency: 'EUR' } });
    const page = await navigate(link.checkout_url);
    const session = (await storedLink(link.id)).psp_session;
    if (!session) throw new Error(`The checkout opened no session: ${page.status} ${page.text}`);
    if (provider === 'stripe') {
      const paid = stripe.completeSession(session.id);
      await notifyStripe(
        stripe.signedEvent('checkout.session.completed', paid, STRIPE_FAKE.credentials.webhook_secret),
      );
    } else if (provider === 'mollie') {
      mollie.setStatus(session.id, 'paid');
      await notifyMollie(session.id);
    } else {
      await notifyAdyen(adyen.pay(session.id));
    }
    expect((await storedLink(link.id)).status).toBe('paid');
    return link;
  }

  const requestRefund = (provider: keyof typeof keys, linkId: string, value: string) =>
    started().stack.request('POST', `/v1/payment-links/${linkId}/refunds`, {
      key: keys[provider].api_key,
      body: { amount: { value, currency: 'EUR' } },
    });

  const refundsOf = async (provider: keyof typeof keys, linkId: string) =>
    (
      await started().stack.request('GET', `/v1/payment-links/${linkId}/refunds`, {
        key: keys[provider].api_key,
      })
    ).body.data;

  const eventTypes = async (provider: keyof typeof keys, linkId: string) =>
    (
      await started().stack.request('GET', `/v1/payment-links/${linkId}/events`, {
        key: keys[provider].api_key,
      })
    ).body.data.map((event: { type: string }) => event.type);

  return {
    started,
    keys,
    connections,
    notifyStripe,
    notifyMollie,
    notifyAdyen,
    paidLink,
    requestRefund,
    refundsOf,
    eventTypes,
  };
}
