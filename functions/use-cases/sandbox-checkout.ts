import { BUILT_IN_SANDBOX_ID } from '../domain/connection.ts';
import { NotFoundError } from '../domain/errors.ts';
import { randomBase62 } from '../domain/random.ts';
import {
  type SandboxMandateStore,
  sandboxCustomerIdOf,
  sandboxMandateIdOf,
} from '../ports/sandbox-mandates.ts';
import type { SandboxSession, SandboxSessionStore } from '../ports/sandbox-sessions.ts';

export interface SandboxDependencies {
  sessions: SandboxSessionStore;
  /** Where Pay on a session that opens a mandate stores it (docs/subscriptions.md#the-sandbox). */
  mandates?: SandboxMandateStore | undefined;
  /** Tells the service the session completed or failed (the sandbox's notification); true once acknowledged. */
  notify: (session: SandboxSession) => Promise<boolean>;
  now: () => Date;
  /** Uniform in [0, 1): whether Pay succeeds on a session with a `success_rate`. */
  random?: (() => number) | undefined;
}

/** The session as its hosted page shows it: an open session past its `expires_at` reads expired. */
export async function getSandboxSession(deps: SandboxDependencies, id: string): Promise<SandboxSession> {
  const session = /^sbcs_[0-9A-Za-z]{24}$/.test(id) ? await deps.sessions.get(id) : undefined;
  if (!session) throw new NotFoundError(`No sandbox session ${id}.`);
  if (session.status === 'open' && Date.parse(session.expires_at) <= deps.now().getTime()) {
    return { ...session, status: 'expired' };
  }
  return session;
}

/**
 * Pay: the simulated payment succeeds (on a session with a `success_rate`, with that probability; otherwise it
 * declines as Decline does). The session completes (once; a second Pay finds it complete) and the
 * service is notified; a repeated Pay notifies again, which the service treats as the duplicate it is. On a
 * session with `processing_ms` (a `--simulate processing` connection) Pay only starts the payment, as a bank
 * transfer: the session is `processing`, refuses to end, and nothing is notified until it succeeds
 * (`visitSandboxSession`).
 */
export async function paySandboxSession(deps: SandboxDependencies, id: string): Promise<SandboxSession> {
  const session = await visitSandboxSession(deps, id);
  if (session.status === 'expired' || session.status === 'processing') return session;
  // A connection's success rate: this Pay is refused as a card would be (docs/orchestration.md#the-sandbox-and---simulate).
  if (
    session.status === 'open' &&
    session.success_rate !== undefined &&
    (deps.random ?? Math.random)() >= session.success_rate
  ) {
    return declineSandboxSession(deps, id);
  }
  // The mandate first: whoever learns that the session completed (the notification, a retrieve) finds it.
  if (session.status === 'open' && session.opens_mandate) await openMandate(deps, session);
  if (session.status === 'open' && session.processing_ms !== undefined) {
    const settlesAt = new Date(deps.now().getTime() + session.processing_ms);
    const reference = `sbpay_${randomBase62(24)}`;
    return (await deps.sessions.startProcessing(id, reference, settlesAt, deps.now())) ?? session;
  }
  const completed =
    session.status === 'complete'
      ? session
      : ((await deps.sessions.complete(id, `sbpay_${randomBase62(24)}`, deps.now())) ?? session);
  if (completed.status === 'complete') await deps.notify(completed);
  return completed;
}

/**
 * The hosted page seen again. A payment under way whose time has come succeeds now, and the service is notified
 * as Pay notifies a payment that succeeds at once (the sandbox has no clock of its own to do it sooner; what
 * the service asks meanwhile, `retrieveSession`, already says succeeded).
 */
export async function visitSandboxSession(deps: SandboxDependencies, id: string): Promise<SandboxSession> {
  const session = await getSandboxSession(deps, id);
  if (session.status !== 'processing' || Date.parse(session.settles_at ?? '') > deps.now().getTime()) {
    return session;
  }
  const settled = (await deps.sessions.settle(id, deps.now())) ?? session;
  if (settled.status === 'complete') await deps.notify(settled);
  return settled;
}

/**
 * Decline: the attempt fails and the service is told, as a PSP reports a refused card; nothing is paid and the
 * link stays open: the buyer goes back to the checkout page, which offers another attempt.
 */
export async function declineSandboxSession(deps: SandboxDependencies, id: string): Promise<SandboxSession> {
  const session = await getSandboxSession(deps, id);
  if (session.status !== 'open') return session;
  await deps.sessions.decline(id);
  const failed = (await deps.sessions.get(id)) ?? session;
  if (failed.status === 'failed') await deps.notify(failed);
  return failed;
}

/**
 * The simulated mandate Pay on `session` leaves behind, as a PSP saves the buyer's method for later charges: its
 * renewals succeed unless the connection's `--simulate renewal_*` says otherwise. Derived from the session, so a
 * repeated Pay stores nothing new.
 */
async function openMandate(deps: SandboxDependencies, session: SandboxSession): Promise<void> {
  const opens = session.opens_mandate;
  if (!opens) return;
  if (!deps.mandates)
    throw new Error('A sandbox session that opens a mandate was paid without a mandate store.');
  const now = deps.now().toISOString();
  await deps.mandates.create({
    id: sandboxMandateIdOf(session.id),
    customer: sandboxCustomerIdOf(session.id),
    connection_id: session.connection_id ?? BUILT_IN_SANDBOX_ID,
    account: session.account,
    mode: session.mode,
    session_id: session.id,
    subscription_id: opens.subscription_id,
    renewals: 'succeed',
    status: 'valid',
    created_at: now,
    updated_at: now,
  });
}
