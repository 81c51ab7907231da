import { createHmac } from 'node:crypto';
import type { ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import { fromPspMinorUnits, pspMinorUnits } from '../../../../domain/psp-rules.ts';
import { checkoutCom } from '../descriptor.ts';
import { parseCkoRefundReference } from '../wire.ts';
import { CHECKOUT_FAKE } from './fake.ts';

/**
 * Checkout.com under the conformance suite: its fake's payment links as the buyer leaves them (authorized, for us
 * to capture or void; or declined by the issuer), and its webhooks signed with the connection's signature key
 * (`Cko-Signature`).
 */
export const conformance: ConformanceFixture = {
  provider: 'checkout_com',
  async start() {
    const { credentials } = CHECKOUT_FAKE;
    const fake = await CHECKOUT_FAKE.start();
    /** The webhook each link's payment made when the buyer paid. */
    const approvals = new Map<string, string>();
    const stored = (session: PspSession) => {
      const found = fake.links.get(session.id);
      if (!found) throw new Error(`no Checkout.com payment link ${session.id}`);
      return found;
    };
    return {
      apiUrl: fake.apiUrl,
      credentials,
      async session(session) {
        const link = stored(session);
        return {
          amount: fromPspMinorUnits(checkoutCom.amounts, link.amount, link.currency),
          lines: link.products?.map(({ name, quantity }) => ({ name, quantity })) ?? null,
          locale: link.locale ?? null,
          references: [link.reference, ...Object.values((link.metadata ?? {}) as Record<string, string>)],
        };
      },
      async pay(session) {
        await fake.pay(session.id, true);
        approvals.set(session.id, fake.webhooks.at(-1) as string);
      },
      async decline(session) {
        await fake.pay(session.id, false);
      },
      async notification(session, signing) {
        const body = approvals.get(session.id);
        if (!body) throw new Error(`no payment on ${session.id}`);
        if (signing === 'other_key') {
          const signature = createHmac('sha256', 'whsk_another-signature-key').update(body).digest('hex');
          return { body, headers: { 'content-type': 'application/json', 'cko-signature': signature } };
        }
        const genuine = fake.signed(body);
        const paymentId = stored(session).payment_id as string;
        return signing === 'genuine' ? genuine : { ...genuine, body: body.replace(paymentId, 'pay_forged') };
      },
      reportAmount(session, amount) {
        stored(session).amount = Number(pspMinorUnits(checkoutCom.amounts, amount));
      },
      outage(kind) {
        fake.outage = kind;
        return undefined;
      },
      async settleRefund(reference, outcome) {
        const parsed = parseCkoRefundReference(reference);
        if (!parsed) throw new Error(`not a Checkout.com refund reference: ${reference}`);
        return fake.signed(
          await fake.settleRefund(parsed.paymentId, parsed.actionId, outcome === 'succeeded'),
        );
      },
      stop: () => fake.stop(),
    };
  },
};
