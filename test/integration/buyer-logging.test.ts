import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FakeStripe, STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { capturedOutput } from '../support/log-capture.ts';
import { navigate } from '../support/navigate.ts';
import { type PspStack, startPspStack } from '../support/psp-stack.ts';
import type { TestStack } from '../support/test-stack.ts';

const FAKES = { stripe: STRIPE_FAKE };

// Every line the functions write, down to debug (vitest.config.ts runs the suite at WARN). Set before the
// logger is built: each invocation resets it to the level it was built with.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

/**
 * Personal data is never logged (docs/security.md#personal-data): neither the buyer's references from the
 * checkout address nor the details the PSP's page asked, not even when the PSP quotes them in a refusal.
 */
let psps: PspStack<typeof FAKES>;
let stack: TestStack;
let stripe: FakeStripe;
let key: IssuedApiKey;
let connection: string;

beforeAll(async () => {
  psps = await startPspStack({ fakes: FAKES });
  ({ stack, stripe } = psps);
  key = await stack.issueKey('quietshop', 'test');
  connection = (await psps.connect('quietshop', 'stripe')).id;
});
afterAll(() => psps?.stop());

describe('logs of a checkout and its notification', () => {
  it("carry none of the buyer's references or details, even where Stripe's refusal quotes them", async () => {
    const personal = {
      reference: 'LOGMARK-reference-7',
      email: 'logmark.buyer@example.com',
      name: 'Logmark Buyername',
      line1: 'Logmarkstraat 99',
    };
    const output = await capturedOutput(async () => {
      const link = await createLink(stack, key.api_key, { collect: { billing_address: 'required' } });
      const address = `${link.checkout_url}?client_reference_id=${personal.reference}&prefilled_email=${encodeURIComponent(personal.email)}`;
      stripe.refuseEmails = true;
      const refused = await navigate(address);
      expect(refused.status).toBe(503);
      stripe.refuseEmails = false;

      await navigate(address);
      const session = (await storedLink(link.id)).psp_session!;
      const paid = stripe.completeSession(session.id, {
        buyer: {
          name: personal.name,
          address: { line1: personal.line1, city: 'Utrecht', postal_code: '3511 AB', country: 'NL' },
        },
      });
      const event = stripe.signedEvent(
        'checkout.session.completed',
        paid,
        STRIPE_FAKE.credentials.webhook_secret,
      );
      const notified = await stack.request('POST', `/psp/stripe/notifications/${connection}`, {
        rawBody: event.body,
        headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
      });
      expect(notified.status).toBe(200);
      const payments = await stack.request('GET', `/v1/payment-links/${link.id}/payments`, {
        key: key.api_key,
      });
      // The attempt Stripe refused is recorded with the buyer's reference too.
      expect(payments.body.data.map((payment: { status: string }) => payment.status)).toEqual([
        'succeeded',
        'failed',
      ]);
      expect(payments.body.data[1].client_reference_id).toBe(personal.reference);
      expect(payments.body.data[0]).toMatchObject({
        client_reference_id: personal.reference,
        buyer: { name: personal.name, billing_address: { line1: personal.line1 } },
      });
    });
    // The refusal was logged, so the test looked where the data would have been.
    expect(output).toContain('PSP refused the session');
    expect(output).toContain('[redacted]');
    for (const value of Object.values(personal)) expect(output).not.toContain(value);
  });
});
