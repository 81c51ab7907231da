import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import type { ConformanceFake, ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { cashfree } from '../descriptor.ts';
import { amountFromCashfree } from '../wire.ts';
import { CASHFREE_FAKE, type FakeCashfree, startFakeCashfree } from './fake.ts';

/**
 * Cashfree in the conformance suite (test/support/psp-conformance.ts): its fake, as its buyer and as Cashfree,
 * charging INR, the one currency of an account whose others Cashfree has not enabled. A declined payment leaves
 * the link ACTIVE for the buyer to try again (pending, not failed), as Cashfree does.
 */
export const conformance: ConformanceFixture = {
  provider: cashfree.id,
  currency: 'INR',
  async start(): Promise<ConformanceFake> {
    const untrust = trustFakePspCertificate();
    const fake = await startFakeCashfree({
      clientId: CASHFREE_FAKE.credentials.client_id,
      clientSecret: CASHFREE_FAKE.credentials.client_secret,
    });
    return cashfreeAtTheFake(fake, untrust);
  },
};

function cashfreeAtTheFake(fake: FakeCashfree, untrust: () => void): ConformanceFake {
  const link = (session: PspSession) => {
    const found = fake.links.get(session.id);
    if (!found) throw new Error(`No Cashfree link ${session.id}`);
    return found;
  };
  return {
    apiUrl: fake.apiUrl,
    credentials: CASHFREE_FAKE.credentials,
    async session(session) {
      const held = link(session);
      const amount = amountFromCashfree(held.link_amount, held.link_currency);
      if (!amount) throw new Error(`Cashfree link ${session.id} holds no amount of ours`);
      // A link has one purpose and no lines, and its page speaks no language we choose.
      return {
        amount,
        lines: null,
        locale: null,
        references: [held.link_id, ...Object.values(held.link_notes)],
      };
    },
    // Cashfree's page asks the buyer nothing of ours.
    async pay(session) {
      fake.pay(session.id);
    },
    async decline(session) {
      fake.decline(session.id);
    },
    async notification(session, signing) {
      const secret = signing === 'other_key' ? 'cfsk_ma_test_another_account_secret' : undefined;
      const webhook = fake.paymentWebhook(session.id, { ...(secret ? { secret } : {}) });
      if (signing !== 'forged') return webhook;
      return { ...webhook, body: webhook.body.replace('"SUCCESS"', '"SUCCESS "') };
    },
    reportAmount(session, amount) {
      fake.reportAmount(session.id, Number(amount.value), amount.currency);
    },
    outage(kind) {
      fake.outage = kind;
      return undefined;
    },
    async settleRefund(reference, outcome) {
      fake.settleRefund(reference, outcome === 'succeeded' ? 'SUCCESS' : 'CANCELLED');
    },
    async stop() {
      await fake.stop();
      untrust();
    },
  };
}
