import type { ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { MOLLIE_FAKE, startFakeMollie } from './fake.ts';

/**
 * Mollie under the conformance suite: its fake's payments as the buyer and Mollie leave them. Mollie's webhook
 * carries only the payment's id, which the adapter looks up with the connection's key: a forged one names a
 * payment Mollie does not know, one of another connection a payment of another account.
 */
export const conformance: ConformanceFixture = {
  provider: 'mollie',
  async start() {
    const { credentials } = MOLLIE_FAKE;
    const fake = await startFakeMollie({ apiKeys: [credentials.api_key] });
    const stored = (session: PspSession) => {
      const found = fake.payments.get(session.id);
      if (!found) throw new Error(`no Mollie payment ${session.id}`);
      return found;
    };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    return {
      apiUrl: fake.apiEndpoint,
      credentials,
      async session(session) {
        const payment = stored(session);
        const lines = payment.lines as { description: string; quantity: number }[] | null;
        return {
          amount: payment.amount,
          lines: lines?.map((line) => ({ name: line.description, quantity: line.quantity })) ?? null,
          locale: (payment.locale as string | null) ?? null,
          references: Object.values((payment.metadata ?? {}) as Record<string, string>),
        };
      },
      async pay(session) {
        fake.setStatus(session.id, 'paid');
      },
      async decline(session) {
        fake.setStatus(session.id, 'failed');
      },
      async notification(session, signing) {
        const id =
          signing === 'genuine'
            ? session.id
            : signing === 'forged'
              ? 'tr_forgedNotKnown1'
              : fake.foreignPayment().id;
        return { body: fake.webhookBody(id), headers: form };
      },
      reportAmount(session, amount) {
        stored(session).amount = { ...amount, value: Number(amount.value).toFixed(2) };
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        // The adapter's reference of a refund is `<payment id>/<refund id>`: Mollie reads a refund by both.
        const refundId = reference.slice(reference.indexOf('/') + 1);
        fake.setRefundStatus(refundId, outcome === 'succeeded' ? 'refunded' : 'failed');
        return undefined;
      },
      mandates: {
        async charges(mandate) {
          return fake.mandates.chargesOf(mandate.reference).map((payment) => ({
            amount: payment.amount,
            state:
              payment.status === 'paid' ? 'succeeded' : payment.status === 'failed' ? 'failed' : 'pending',
          }));
        },
        nextCharge: (outcome) => fake.mandates.nextCharge(outcome),
        async settleCharge(reference, outcome) {
          fake.mandates.settle(reference, outcome === 'succeeded' ? 'paid' : 'failed');
        },
        // A trial's first payment of nothing, from cards only.
      },
      stop: () => fake.stop(),
    };
  },
};
