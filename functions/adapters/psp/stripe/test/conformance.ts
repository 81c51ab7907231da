import type { ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { BuyerDetails, PostalAddress } from '../../../../domain/buyer.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { stripe } from '../descriptor.ts';
import { type FakeStripeBuyer, STRIPE_FAKE, startFakeStripe } from './fake.ts';
import { cardDeclined } from './fake-declines.ts';

/** What a buyer types on Stripe's page, in its fake's words. */
function stripeBuyer(buyer: BuyerDetails): FakeStripeBuyer {
  const address = (given: PostalAddress) => ({ ...given, postal_code: given.postal_code ?? null });
  return {
    ...(buyer.email ? { email: buyer.email } : {}),
    ...(buyer.name ? { name: buyer.name } : {}),
    ...(buyer.phone ? { phone: buyer.phone } : {}),
    ...(buyer.billing_address ? { address: address(buyer.billing_address) } : {}),
    ...(buyer.shipping_address
      ? { shipping: { name: buyer.name ?? '', address: address(buyer.shipping_address) } }
      : {}),
  };
}

/** A renewal's PaymentIntent in the suite's words: any other status is a declined one's. */
const CHARGE_STATES: Partial<Record<string, 'succeeded' | 'pending'>> = {
  succeeded: 'succeeded',
  processing: 'pending',
};

/** Stripe under the conformance suite: its fake, and Checkout Sessions as its buyer and its webhooks see them. */
export const conformance: ConformanceFixture = {
  provider: 'stripe',
  async start() {
    const { credentials } = STRIPE_FAKE;
    const fake = await startFakeStripe({ secretKey: credentials.secret_key });
    const stored = (session: PspSession) => {
      const found = fake.sessions.get(session.id);
      if (!found) throw new Error(`no Checkout Session ${session.id}`);
      return found;
    };
    const completed = (session: PspSession, secret: string) =>
      fake.signedEvent('checkout.session.completed', stored(session), secret);
    return {
      apiUrl: fake.url,
      credentials,
      async session(session) {
        const held = stored(session);
        const form = fake.forms.get(session.id) ?? {};
        const currency = String(held.currency).toUpperCase();
        const lines = Object.keys(form).filter((name) => /^line_items\[\d+\]\[quantity\]$/.test(name));
        return {
          amount: fromPspMinorUnits(stripe.amounts, Number(held.amount_total), currency),
          lines: lines.map((_, index) => ({
            name: form[`line_items[${index}][price_data][product_data][name]`] ?? '',
            quantity: Number(form[`line_items[${index}][quantity]`]),
          })),
          locale: (held.locale as string | null) ?? null,
          references: [
            String(held.client_reference_id),
            ...Object.values(held.metadata as Record<string, string>),
          ],
        };
      },
      async pay(session, buyer) {
        fake.completeSession(session.id, { buyer: stripeBuyer(buyer) });
      },
      async decline(session) {
        // Stripe's page keeps its session open after a declined card, for the buyer to try another.
        fake.declines.attempt(session.id, cardDeclined('generic_decline'));
      },
      async notification(session, signing) {
        if (signing === 'other_key') {
          const event = completed(session, 'whsec_another_endpoint');
          return { body: event.body, headers: { 'stripe-signature': event.signature } };
        }
        const event = completed(session, credentials.webhook_secret);
        const body = signing === 'genuine' ? event.body : event.body.replace(session.id, 'cs_test_forged');
        return { body, headers: { 'stripe-signature': event.signature } };
      },
      reportAmount(session, amount) {
        stored(session).amount_total = Number(pspMinorUnits(stripe.amounts, amount));
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        fake.settleRefund(reference, outcome);
        return undefined;
      },
      mandates: {
        // A Checkout Session in setup mode saves the method and charges nothing.
        async charges(mandate) {
          return fake.mandates.charges(mandate.reference).map((intent) => ({
            amount: fromPspMinorUnits(stripe.amounts, intent.amount, intent.currency),
            state: CHARGE_STATES[intent.status] ?? 'failed',
          }));
        },
        nextCharge: (outcome) => fake.mandates.nextCharge(outcome),
        async settleCharge(reference, outcome) {
          fake.mandates.settleCharge(reference, outcome);
        },
      },
      stop: () => fake.stop(),
    };
  },
};
