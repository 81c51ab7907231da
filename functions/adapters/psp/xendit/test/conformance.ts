import { trustFakePspCertificate } from '../../../../../test/support/fake-psp-server.ts';
import type { ConformanceFake, ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import { xenditAmountOf } from '../adapter.ts';
import { xendit } from '../descriptor.ts';
import { type FakeXendit, XENDIT_FAKE } from './fake.ts';

const TOKEN = XENDIT_FAKE.credentials.callback_token;

/** Xendit in the conformance suite (test/support/psp-conformance.ts): its fake, as its buyer and as Xendit. */
export const conformance: ConformanceFixture = {
  provider: xendit.id,
  currency: 'PHP',
  async start(): Promise<ConformanceFake> {
    const untrust = trustFakePspCertificate();
    const fake = await XENDIT_FAKE.start();
    return xenditAtTheFake(fake, untrust);
  },
};

function xenditAtTheFake(fake: FakeXendit, untrust: () => void): ConformanceFake {
  const held = (id: string) => {
    const found = fake.sessions.get(id);
    if (!found) throw new Error(`No Xendit session ${id}`);
    return found;
  };
  return {
    apiUrl: fake.apiUrl,
    credentials: XENDIT_FAKE.credentials,
    async session(session) {
      const made = held(session.id);
      const amount = xenditAmountOf(xendit, made.amount, made.currency);
      if (!amount) throw new Error(`Xendit session ${session.id} holds no amount of ours`);
      return {
        amount,
        // Xendit is sent no lines; its page speaks the two-letter language it was told.
        lines: null,
        locale: typeof made.locale === 'string' ? made.locale : null,
        references: [made.reference_id, ...Object.values(made.metadata ?? {}).map(String)],
      };
    },
    async pay(session) {
      fake.pay(session.id);
    },
    async decline(session) {
      fake.decline(session.id);
    },
    async notification(session, signing) {
      // The token signs nothing: a forged notification carries a guess at it, another key another account's.
      const token =
        signing === 'genuine'
          ? TOKEN
          : signing === 'forged'
            ? `${TOKEN.slice(0, -1)}x`
            : 'another0account0callback0token0000000000000000';
      return fake.sessionEvent('payment_session.completed', session.id, token);
    },
    reportAmount(session, amount) {
      const made = held(session.id);
      made.amount = Number(amount.value);
      made.currency = amount.currency;
    },
    outage(kind) {
      fake.outage = kind;
      return undefined;
    },
    async settleRefund(reference, outcome) {
      fake.settleRefund(reference, outcome === 'succeeded' ? 'SUCCEEDED' : 'FAILED');
    },
    async stop() {
      await fake.stop();
      untrust();
    },
  };
}
