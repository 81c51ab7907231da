import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentKeys } from '../../functions/adapters/dynamodb/table-schema.ts';
import { ADYEN_FAKE } from '../../functions/adapters/psp/adyen/test/fake.ts';
import { MOLLIE_FAKE } from '../../functions/adapters/psp/mollie/test/fake.ts';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { PspSession } from '../../functions/domain/payment-link.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { postOurForm } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE, mollie: MOLLIE_FAKE, adyen: ADYEN_FAKE };

/**
 * A buyer-chosen amount (`amount_range`) lives in our payment record and on the link's session; when both are
 * lost before the PSP's notification, the payment is recorded at what the PSP says it took
 * (`PspSessionStatus.amount`), read back from each PSP through its official SDK against its fake.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
/**
 * The PSPs whose payment moves the money by itself. At a deferred-capture PSP (Checkout.com) an attempt whose
 * record is lost is never captured (docs/orchestration.md#deferred-capture), so it has no amount to read back.
 */
type PayingProvider = keyof typeof FAKES;
const keys = {} as Record<PayingProvider, IssuedApiKey>;
const connections = {} as Record<PayingProvider, PspConnection>;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  stack = psps.stack;
  for (const provider of ['stripe', 'mollie', 'adyen'] as const) {
    keys[provider] = await stack.issueKey(`chosen-${provider}`, 'test');
    connections[provider] = await psps.connect(`chosen-${provider}`, provider);
  }
});
afterAll(() => psps?.stop());

/** The buyer sends our amount form, as Chromium sends it from our page. */
const choose = (url: string, amount: string) => postOurForm(url, { amount }, { 'accept-language': 'en' });

/** The buyer pays the session at the PSP, and the PSP's notification of it, as each PSP sends it. */
function payAndNotify(provider: PayingProvider, session: PspSession) {
  const path = `/psp/${provider}/notifications/${connections[provider].id}`;
  switch (provider) {
    case 'stripe': {
      const paid = psps.stripe.completeSession(session.id);
      const event = psps.stripe.signedEvent(
        'checkout.session.completed',
        paid,
        STRIPE_FAKE.credentials.webhook_secret,
      );
      return stack.request('POST', path, {
        rawBody: event.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      });
    }
    case 'mollie':
      psps.mollie.setStatus(session.id, 'paid');
      return stack.request('POST', path, {
        rawBody: psps.mollie.webhookBody(session.id),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    case 'adyen': {
      const item = psps.adyen.pay(session.id);
      return stack.request('POST', path, {
        rawBody: psps.adyen.notification([item], { hmacKey: ADYEN_FAKE.credentials.hmac_key }),
        headers: { 'content-type': 'application/json' },
      });
    }
  }
}

describe('a buyer-chosen amount whose records were lost before the notification', () => {
  it.each(['stripe', 'mollie', 'adyen'] as const)(
    'is recorded at %s at the amount the PSP took, not the range’s suggestion',
    async (provider) => {
      const link = await createLink(stack, keys[provider].api_key, {
        amount: undefined,
        amount_range: { currency: 'EUR', minimum: '5.00', maximum: '500.00', suggested: '25.00' },
      });
      expect((await choose(link.checkout_url, '37.5')).status).toBe(303);
      const stored = await storedLink(link.id);
      const session = stored.psp_session!;
      expect(session).toMatchObject({ provider, amount: { value: '37.50', currency: 'EUR' } });

      // Both our records of the attempt are gone: the payment's item, and the link's own session.
      await documentClient().send(
        new DeleteCommand({
          TableName: stack.tableName,
          Key: paymentKeys.payment(link.id, 'test', session.payment_id),
        }),
      );
      await linkRepository().update(stored, { ...stored, psp_session: null, version: stored.version + 1 });

      const response = await payAndNotify(provider, session);
      expect(response.status).toBe(200);
      expect(await paymentRepository().get(link.id, 'test', session.payment_id)).toMatchObject({
        status: 'succeeded',
        amount: { value: '37.50', currency: 'EUR' },
      });
      const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
        key: keys[provider].api_key,
      });
      expect(payments.body.data).toEqual([
        expect.objectContaining({ id: session.payment_id, amount: { value: '37.50', currency: 'EUR' } }),
      ]);
      expect((await storedLink(link.id)).status).toBe('paid');
    },
  );
});
