import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import type { ConformanceFake, ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { Amount } from '../../../../domain/money.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { mercadopago } from '../descriptor.ts';
import { fromMercadoPagoNumber, mercadoPagoNumber } from '../wire.ts';
import { type FakeMercadoPago, type FakePayment, MERCADOPAGO_FAKE } from './fake.ts';

const SECRET = MERCADOPAGO_FAKE.credentials.webhook_secret;

/** Mercado Pago in the conformance suite (test/support/psp-conformance.ts): its fake, as its buyer and as Mercado Pago. */
export const conformance: ConformanceFixture = {
  provider: mercadopago.id,
  currency: 'BRL',
  async start(): Promise<ConformanceFake> {
    const untrust = trustFakePspCertificate();
    const fake = await MERCADOPAGO_FAKE.start();
    return mercadoPagoAtTheFake(fake, untrust);
  },
};

function mercadoPagoAtTheFake(fake: FakeMercadoPago, untrust: () => void): ConformanceFake {
  const preference = (session: PspSession) => {
    const found = fake.preferences.get(session.id);
    if (!found) throw new Error(`No Mercado Pago preference ${session.id}`);
    return found;
  };
  /** The payment the buyer made on the session's page (the newest), if any. */
  const madeOn = (session: PspSession): FakePayment | undefined => {
    const { external_reference } = preference(session);
    return [...fake.payments.values()]
      .filter((each) => each.external_reference === external_reference)
      .at(-1);
  };
  const payment = (session: PspSession): FakePayment => {
    const made = madeOn(session);
    if (!made) throw new Error(`No Mercado Pago payment on ${session.id}`);
    return made;
  };
  // What `reportAmount` said each session's page charges: its payment, made then or later, carries it.
  const reported = new Map<string, Amount>();
  const charge = (session: PspSession) => {
    const amount = reported.get(session.id);
    const paid = madeOn(session);
    if (!amount || !paid) return;
    paid.transaction_amount = mercadoPagoNumber(mercadopago, amount);
    paid.currency_id = amount.currency;
  };
  return {
    apiUrl: fake.apiUrl,
    credentials: MERCADOPAGO_FAKE.credentials,
    async session(session) {
      const { items, external_reference } = preference(session);
      const currency = items[0]?.currency_id ?? '';
      const total =
        items.reduce((sum, item) => sum + Math.round(item.unit_price * 100) * item.quantity, 0) / 100;
      return {
        amount: fromMercadoPagoNumber(mercadopago, total, currency),
        lines: items.map((item) => ({ name: item.title, quantity: item.quantity })),
        // Checkout Pro takes no language: its page speaks its site's.
        locale: null,
        // `pl_…/pay_…`: our two ids.
        references: [external_reference, ...external_reference.split('/')],
      };
    },
    async pay(session) {
      fake.pay(session.id, 'approved');
      charge(session);
    },
    async decline(session) {
      fake.pay(session.id, 'rejected');
      charge(session);
    },
    async notification(session, signing) {
      const paid = payment(session);
      if (signing === 'other_key') return fake.notification(paid, 'another-application-secret');
      const genuine = fake.notification(paid, SECRET);
      if (signing === 'genuine') return genuine;
      // Only the payment's id is signed (with the request's id and time): forged is another id under that signature.
      return { ...genuine, body: genuine.body.replace(`"id":"${paid.id}"`, `"id":"${Number(paid.id) + 1}"`) };
    },
    reportAmount(session, amount) {
      reported.set(session.id, amount);
      charge(session);
    },
    outage(kind) {
      fake.outage = kind;
      return undefined;
    },
    async settleRefund(reference, outcome) {
      fake.settleRefund(Number(reference.split('/')[1]), outcome === 'succeeded' ? 'approved' : 'rejected');
    },
    async stop() {
      await fake.stop();
      untrust();
    },
  };
}
