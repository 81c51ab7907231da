import type {
  ConformanceChargeOutcome,
  ConformanceFixture,
  ConformanceMandates,
} from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import type {
  SandboxCharge,
  SandboxMandate,
  SandboxMandateStore,
} from '../../../../ports/sandbox-mandates.ts';
import type { SandboxSession, SandboxSessionStore } from '../../../../ports/sandbox-sessions.ts';
import { paySandboxSession } from '../../../../use-cases/sandbox-checkout.ts';
import { SANDBOX_COMPLETED, SANDBOX_SIGNATURE_HEADER, signSandboxPayload } from '../notifications.ts';

/**
 * The sandbox under the conformance suite: its sessions and mandates in memory, as our own table keeps them (its
 * hosted page is ours, so the buyer's Pay and Decline are what that page writes), its notifications signed with
 * the service's sandbox secret, its outages those of a connection that simulates them (`--simulate fail`,
 * `timeout`), its renewals' outcomes what a mandate's own page sets (`renewals`).
 */
export const conformance: ConformanceFixture = {
  provider: 'sandbox',
  async start() {
    const sessions = new Map<string, SandboxSession>();
    const store = inMemorySessions(sessions);
    const { store: mandates, fixture: mandateFixture } = inMemoryMandates();
    const secret = 'sandbox-conformance-secret';
    const stored = (session: PspSession) => {
      const found = sessions.get(session.id);
      if (!found) throw new Error(`no sandbox session ${session.id}`);
      return found;
    };
    const notification = (session: PspSession, key: string, body?: string) => {
      const signed = JSON.stringify({
        type: SANDBOX_COMPLETED,
        session_id: session.id,
        link_id: stored(session).link_id,
        mode: 'test',
        created: Math.floor(Date.now() / 1000),
      });
      const header = signSandboxPayload(key, signed, Math.floor(Date.now() / 1000));
      return { body: body ?? signed, headers: { [SANDBOX_SIGNATURE_HEADER]: header } };
    };
    return {
      apiUrl: undefined,
      credentials: null,
      connection: { simulate: 'ok' },
      runtime: {
        sandbox: { sessions: () => store, signingSecret: async () => secret, mandates: () => mandates },
      },
      async session(session) {
        const found = stored(session);
        return {
          amount: found.amount,
          lines: null,
          locale: found.locale ?? null,
          references: [found.payment_id, found.link_id].filter((value) => value !== undefined),
        };
      },
      // Pay as the sandbox's page does it: a session that opens a mandate leaves it behind.
      async pay(session) {
        const notify = async () => true;
        await paySandboxSession({ sessions: store, mandates, notify, now: () => new Date() }, session.id);
      },
      async decline(session) {
        await store.decline(session.id);
      },
      async notification(session, signing) {
        if (signing === 'other_key') return notification(session, 'another-secret');
        const genuine = notification(session, secret);
        // The same signature over a body naming another session.
        return signing === 'genuine'
          ? genuine
          : { ...genuine, body: genuine.body.replace(session.id, 'sbcs_x') };
      },
      reportAmount(session, amount) {
        stored(session).amount = amount;
      },
      outage(kind) {
        return kind === 'none' ? undefined : { simulate: kind === 'error' ? 'fail' : 'timeout' };
      },
      mandates: mandateFixture,
      async stop() {},
    };
  },
};

/** Our table's sandbox sessions, in memory: each write on the status it requires, as the conditional writes do. */
function inMemorySessions(sessions: Map<string, SandboxSession>): SandboxSessionStore {
  const ifOpen = (id: string, change: Partial<SandboxSession>) => {
    const session = sessions.get(id);
    if (session?.status !== 'open') return false;
    Object.assign(session, change);
    return true;
  };
  return {
    create: async (session) => {
      sessions.set(session.id, { ...session });
    },
    get: async (id) => sessions.get(id),
    complete: async (id, reference) => {
      ifOpen(id, { status: 'complete', payment_reference: reference });
      return sessions.get(id);
    },
    startProcessing: async (id, reference, settlesAt) => {
      ifOpen(id, { status: 'processing', payment_reference: reference, settles_at: settlesAt.toISOString() });
      return sessions.get(id);
    },
    settle: async (id) => sessions.get(id),
    decline: async (id) => {
      const session = sessions.get(id);
      ifOpen(id, { status: 'failed', declined_attempts: (session?.declined_attempts ?? 0) + 1 });
    },
    expire: async (id) => ifOpen(id, { status: 'expired' }),
  };
}

/**
 * The sandbox's mandates, in memory, and the suite's switches on them: the next charge finds its mandate's
 * renewals set to the outcome asked (as the mandate's page sets them), or the mandate revoked, once. The sandbox
 * answers every charge at once (no `settleCharge`) and sets a mandate up without a charge on a trial's session.
 */
function inMemoryMandates(): { store: SandboxMandateStore; fixture: ConformanceMandates } {
  const mandates = new Map<string, SandboxMandate>();
  const charges = new Map<string, SandboxCharge>();
  let next: Exclude<ConformanceChargeOutcome, 'pending'> | undefined;
  const asNext = (mandate: SandboxMandate | undefined): SandboxMandate | undefined => {
    if (!mandate || !next) return mandate;
    return next === 'revoked' ? { ...mandate, status: 'revoked' } : { ...mandate, renewals: next };
  };
  const store: SandboxMandateStore = {
    create: async (mandate) => {
      if (!mandates.has(mandate.id)) mandates.set(mandate.id, { ...mandate });
      return mandates.get(mandate.id) ?? mandate;
    },
    get: async (id) => asNext(mandates.get(id)),
    update: async (id, changes, now) => {
      const mandate = mandates.get(id);
      if (mandate) Object.assign(mandate, changes, { updated_at: now.toISOString() });
      return mandate;
    },
    recordCharge: async (charge) => {
      if (charges.has(charge.reference)) return charges.get(charge.reference) ?? charge;
      charges.set(charge.reference, { ...charge });
      const mandate = mandates.get(charge.mandate_id);
      // A revoked mandate stays revoked; any other outcome was for this charge only.
      if (mandate && next === 'revoked') mandate.status = 'revoked';
      next = undefined;
      return charge;
    },
    getCharge: async (mandateId, reference) => {
      const charge = charges.get(reference);
      return charge?.mandate_id === mandateId ? charge : undefined;
    },
    chargesOf: async (mandateId) => [...charges.values()].filter((charge) => charge.mandate_id === mandateId),
  };
  const fixture: ConformanceMandates = {
    charges: async (mandate) =>
      (await store.chargesOf(mandate.reference)).map(({ amount, state }) => ({ amount, state })),
    nextCharge(outcome) {
      if (outcome === 'pending') throw new Error('The sandbox answers every charge at once.');
      next = outcome;
    },
  };
  return { store, fixture };
}
