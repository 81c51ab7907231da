import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import type { ConformanceFake, ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { paystack } from '../descriptor.ts';
import { type FakePaystack, PAYSTACK_FAKE, verification } from './fake.ts';

const KEY = PAYSTACK_FAKE.credentials.secret_key;

/** Paystack in the conformance suite (test/support/psp-conformance.ts): its fake, as its buyer and as Paystack. */
export const conformance: ConformanceFixture = {
  provider: paystack.id,
  currency: 'NGN',
  async start(): Promise<ConformanceFake> {
    const untrust = trustFakePspCertificate();
    const fake = await PAYSTACK_FAKE.start();
    return paystackAtTheFake(fake, untrust);
  },
};

function paystackAtTheFake(fake: FakePaystack, untrust: () => void): ConformanceFake {
  const transaction = (reference: string) => {
    const found = fake.transactions.get(reference);
    if (!found) throw new Error(`No Paystack transaction ${reference}`);
    return found;
  };
  const success = (reference: string) => verification(transaction(reference));
  return {
    apiUrl: fake.apiUrl,
    credentials: PAYSTACK_FAKE.credentials,
    async session(session) {
      const held = transaction(session.id);
      return {
        amount: fromPspMinorUnits(paystack.amounts, held.amount, held.currency),
        // Paystack is sent no lines and speaks no language we choose.
        lines: null,
        locale: null,
        references: [held.reference, ...Object.values(held.metadata).map(String)],
      };
    },
    async pay(session) {
      fake.pay(session.id);
    },
    async decline(session) {
      fake.pay(session.id, 'failed');
    },
    async notification(session, signing) {
      const key = signing === 'other_key' ? 'sk_test_another0account0key' : KEY;
      const { body, signature } = fake.signedEvent('charge.success', success(session.id), key);
      const sent = signing === 'forged' ? body.replace('"status":"success"', '"status":"success" ') : body;
      return {
        body: sent,
        headers: { 'content-type': 'application/json', 'x-paystack-signature': signature },
      };
    },
    reportAmount(session, amount) {
      const held = transaction(session.id);
      held.amount = Number(pspMinorUnits(paystack.amounts, amount));
      held.currency = amount.currency;
    },
    outage(kind) {
      fake.outage = kind;
      return undefined;
    },
    async settleRefund(reference, outcome) {
      fake.settleRefund(Number(reference), outcome === 'succeeded' ? 'processed' : 'failed');
    },
    async stop() {
      await fake.stop();
      untrust();
    },
  };
}
