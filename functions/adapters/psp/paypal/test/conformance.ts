import { createHmac } from 'node:crypto';
import type { ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { PAYPAL_FAKE } from './fake.ts';

type Unit = {
  amount: { value: string; currency_code: string };
  items?: { name: string; quantity: string }[];
  custom_id?: string;
  invoice_id?: string;
};

/**
 * PayPal under the conformance suite: its fake's orders as the buyer leaves them (approved, for us to capture;
 * or approved with a funding source whose capture is declined), and webhook deliveries that the adapter has PayPal
 * verify (`verify-webhook-signature`): a forged one carries another event than the one signed, one of another
 * connection a signature PayPal did not make.
 */
export const conformance: ConformanceFixture = {
  provider: 'paypal',
  async start() {
    const { credentials } = PAYPAL_FAKE;
    const fake = await PAYPAL_FAKE.start();
    const unitOf = (session: PspSession) => {
      const order = fake.orders.get(session.id);
      if (!order) throw new Error(`no PayPal order ${session.id}`);
      return { order, unit: order.purchase_units[0] as Unit };
    };
    return {
      apiUrl: fake.apiUrl,
      credentials,
      async session(session) {
        const { order, unit } = unitOf(session);
        return {
          amount: { value: unit.amount.value, currency: unit.amount.currency_code },
          lines: unit.items?.map((item) => ({ name: item.name, quantity: Number(item.quantity) })) ?? null,
          locale: order.locale ?? null,
          references: [unit.custom_id, unit.invoice_id].filter((value) => value !== undefined),
        };
      },
      async pay(session, buyer) {
        const [given_name = '', ...surname] = (buyer.name ?? '').split(' ');
        fake.approve(session.id, {
          ...(buyer.email ? { email_address: buyer.email } : {}),
          ...(buyer.name ? { name: { given_name, surname: surname.join(' ') } } : {}),
        });
      },
      async decline(session) {
        fake.decline(session.id);
      },
      async notification(session, signing) {
        const delivery = fake.delivery('CHECKOUT.ORDER.APPROVED', { orderId: session.id });
        if (signing === 'genuine') return delivery;
        if (signing === 'forged')
          return { ...delivery, body: delivery.body.replace(session.id, 'FORGED0RDER00000') };
        const sig = createHmac('sha256', 'another-key').update(delivery.body).digest('hex');
        return { ...delivery, headers: { ...delivery.headers, 'paypal-transmission-sig': sig } };
      },
      reportAmount(session, amount) {
        unitOf(session).unit.amount = {
          value: Number(amount.value).toFixed(2),
          currency_code: amount.currency,
        };
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        fake.setRefundStatus(reference, outcome === 'succeeded' ? 'COMPLETED' : 'FAILED');
        return undefined;
      },
      // Vaulted by the capture that follows `pay` (the suite captures what PayPal leaves approved).
      mandates: {
        async charges(mandate) {
          return fake.vault.renewals
            .filter((renewal) => renewal.token === mandate.reference)
            .map(({ amount, state }) => ({
              amount: { value: amount.value, currency: amount.currency_code },
              state: state === 'COMPLETED' ? 'succeeded' : state === 'PENDING' ? 'pending' : 'failed',
            }));
        },
        nextCharge: (outcome) => fake.vault.nextCharge(outcome),
        async settleCharge(reference, outcome) {
          fake.vault.settle(reference, outcome);
        },
      },
      stop: () => fake.stop(),
    };
  },
};
