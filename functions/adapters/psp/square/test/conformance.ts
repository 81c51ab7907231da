import type { ConformanceFixture, RawNotification } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { square } from '../descriptor.ts';
import { amountOf } from '../wire.ts';
import { type FakeSquarePayment, SQUARE_FAKE, startFakeSquare } from './fake.ts';

/** Where the suite's service is: the notification address Square signs is built on it. */
const BASE_URL = 'https://pay.example';

/**
 * Square in the conformance suite: its fake (a location in Ireland, which takes EUR), the buyer paying on the
 * payment link's order, notifications signed over the connection's notification address.
 */
export const conformance: ConformanceFixture = {
  provider: square.id,
  async start() {
    const { access_token, location_id, signature_key } = SQUARE_FAKE.credentials;
    const fake = await startFakeSquare({
      accessToken: access_token,
      locationId: location_id,
      signatureKey: signature_key,
    });
    /** Amounts the PSP is to report from now on, by order. */
    const reported = new Map<string, { amount: number; currency: string }>();
    const orderOf = (session: PspSession) => {
      const order = fake.orders.get(session.id.slice(session.id.indexOf(':') + 1));
      if (!order) throw new Error(`Square holds no order of ${session.id}`);
      return order;
    };
    const lastPayment = (session: PspSession): FakeSquarePayment => {
      const order = orderOf(session);
      const payment = [...fake.payments.values()].findLast(({ order_id }) => order_id === order.id);
      if (!payment) throw new Error(`no payment of ${session.id} yet`);
      return payment;
    };
    const signed = (session: PspSession, body: string, key?: string): RawNotification => ({
      body,
      headers: {
        'content-type': 'application/json',
        'x-square-hmacsha256-signature': fake.signature(
          body,
          `${BASE_URL}/psp/${square.id}/notifications/${session.connection_id}`,
          key,
        ),
      },
    });
    return {
      apiUrl: fake.url,
      credentials: SQUARE_FAKE.credentials,
      runtime: { baseUrl: BASE_URL },
      async session(session) {
        const order = orderOf(session);
        const lines = (order.line_items ?? []) as { name: string; quantity: string }[];
        const metadata = (order.metadata ?? {}) as Record<string, string>;
        const link = fake.links.get(session.id.slice(0, session.id.indexOf(':')));
        return {
          amount: amountOf(square, order.total_money) as NonNullable<ReturnType<typeof amountOf>>,
          lines: lines.map(({ name, quantity }) => ({ name, quantity: Number(quantity) })),
          locale: null,
          references: [
            String(order.reference_id),
            ...Object.values(metadata),
            String(link?.payment_note ?? ''),
          ],
        };
      },
      async pay(session) {
        const charged = reported.get(orderOf(session).id);
        await fake.pay(session.id, charged ? { charged } : {});
      },
      async decline(session) {
        await fake.pay(session.id, { decline: true });
      },
      async notification(session, signing) {
        const body = fake.notification('payment.updated', { payment: lastPayment(session) });
        if (signing === 'other_key') return signed(session, body, 'another-square-signature-key');
        const genuine = signed(session, body);
        return signing === 'genuine' ? genuine : { ...genuine, body: body.replace(/}$/, ' }') };
      },
      reportAmount(session, amount) {
        const charged = { amount: Number(pspMinorUnits(square.amounts, amount)), currency: amount.currency };
        const order = orderOf(session);
        reported.set(order.id, charged);
        for (const payment of fake.payments.values()) {
          if (payment.order_id === order.id)
            Object.assign(payment, { amount_money: charged, total_money: charged });
        }
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        await fake.settleRefund(reference, outcome === 'succeeded' ? 'COMPLETED' : 'FAILED');
      },
      stop: fake.stop,
    };
  },
};
