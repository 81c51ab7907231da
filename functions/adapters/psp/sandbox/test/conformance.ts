import type { ConformanceFixture } from '../../../../../test/support/psp-conformance.ts';
import type { PspSession } from '../../../../domain/payment-link.ts';
import type { SandboxSession, SandboxSessionStore } from '../../../../ports/sandbox-sessions.ts';
import { SANDBOX_COMPLETED, SANDBOX_SIGNATURE_HEADER, signSandboxPayload } from '../notifications.ts';

/**
 * The sandbox under the conformance suite: its sessions in memory, as our own table keeps them (its hosted page is
 * ours, so the buyer's Pay and Decline are what that page writes), its notifications signed with the service's
 * sandbox secret, its outages those of a connection that simulates them (`--simulate fail`, `timeout`).
 */
export const conformance: ConformanceFixture = {
  provider: 'sandbox',
  async start() {
    const sessions = new Map<string, SandboxSession>();
    const store = inMemorySessions(sessions);
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
      runtime: { sandbox: { sessions: () => store, signingSecret: async () => secret } },
      async session(session) {
        const found = stored(session);
        return {
          amount: found.amount,
          lines: null,
          locale: found.locale ?? null,
          references: [found.payment_id, found.link_id].filter((value) => value !== undefined),
        };
      },
      async pay(session) {
        await store.complete(session.id, `sbpay_${session.id.slice('sbcs_'.length)}`, new Date());
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
