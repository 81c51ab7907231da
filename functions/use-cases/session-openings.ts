import type { LineItem } from '../domain/amount.ts';
import { type BuyerDetail, detailsPspPageAsks, type PageAsks } from '../domain/buyer.ts';
import { ANSWER_ROOM_MS, PSP_CALL_TIMEOUT_MS } from '../domain/call-budgets.ts';
import {
  attemptDecision,
  countsAgainstHealth,
  nextAttempt,
  TRIAL_LEASE_MS,
} from '../domain/checkout/failover.ts';
import { mandateOfAttempt } from '../domain/checkout/mandates.ts';
import type { PlannedOpening } from '../domain/checkout/plan.ts';
import { sessionExpiry, withSession } from '../domain/checkout/sessions.ts';
import type { PspConnection } from '../domain/connection.ts';
import {
  afterFailure,
  afterSuccess,
  type ConnectionHealth,
  claimTrial,
  INITIAL_HEALTH,
  isDownForOutages,
} from '../domain/connection-health.ts';
import { ConcurrentModificationError } from '../domain/errors.ts';
import type { Amount } from '../domain/money.ts';
import { newPaymentId, type Payment, startedPayment, unavailablePayment } from '../domain/payment.ts';
import type { LinkSession, PaymentLink, PspSession } from '../domain/payment-link.ts';
import { methodsFor } from '../domain/payment-methods.ts';
import type { TriedAttempt } from '../domain/routing-decision.ts';
import { logger, withoutPersonalData } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import { type Psp, pspFailureOf, type SessionRequest } from '../ports/psp.ts';
import { canCaptureLater, canEndSessions } from '../ports/psp-capabilities.ts';
import type { PspConnections } from './psp-connections.ts';
import { recordEndedByUs } from './session-endings.ts';
import type { MandatePayments } from './subscription-starts.ts';

/**
 * Opening a PSP session for a checkout plan (docs/orchestration.md#failover): each candidate connection in the
 * plan's order within the request's PSP-call budget, by the rules of functions/domain/checkout/failover.ts, its
 * health consulted and updated, the attempt recorded as a payment, and the session stored on the link (or, on a
 * reusable link, as the buyer's own); a session that no buyer was sent to is ended.
 */

export interface SessionOpeningDependencies {
  links: LinkRepository;
  payments: PaymentRepository;
  psps: PspConnections;
  now: () => Date;
  checkoutBase: string;
  /** Public base of the service: PSP notification addresses are built on it. */
  baseUrl: string;
  /** Time left before the function times out. */
  timeLeftMs: () => number;
  /** PSP calls one request may make at most (its function's declared call budget, lib/routes.ts). */
  maxPspCalls: number;
  /** What a paid subscription link starts, when a session it ends turns out paid (./subscription-starts.ts). */
  mandatePayments?: MandatePayments | undefined;
}

/** What opening came to (see `openSession`). */
export type SessionOpening =
  | { kind: 'opened'; link: PaymentLink; session: PspSession; pspOrigin: string }
  | { kind: 'decide_again' }
  | { kind: 'unavailable' };

/**
 * The PSP calls one checkout request may still make: its function's declared count (`maxPspCalls`) and what fits
 * in the time left. Counted here only: the decision reads `left()`, and each call is `spend`t where it is made.
 */
export class PspCallBudget {
  private used = 0;
  private readonly deps: Pick<SessionOpeningDependencies, 'maxPspCalls' | 'timeLeftMs'>;

  constructor(deps: Pick<SessionOpeningDependencies, 'maxPspCalls' | 'timeLeftMs'>) {
    this.deps = deps;
  }

  left(): number {
    const byTime = Math.floor((this.deps.timeLeftMs() - ANSWER_ROOM_MS) / PSP_CALL_TIMEOUT_MS);
    return Math.max(0, Math.min(this.deps.maxPspCalls - this.used, byTime));
  }

  /**
   * Whether one call still fits the time left, whatever the count: for ending a session of our own that no buyer
   * was sent to, which is cleanup rather than the visitor's cost.
   */
  hasTimeForOne(): boolean {
    return this.deps.timeLeftMs() >= PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS;
  }

  spend(calls = 1): void {
    this.used += calls;
  }
}

/**
 * What a new session is for, as the round's plan settles it (`PlannedOpening`), with the link's place it holds
 * when the link has places.
 */
export interface Opening extends PlannedOpening {
  /**
   * The link's place this opening holds (functions/use-cases/place-holds.ts): handed to the session's payment
   * once that is recorded.
   */
  place?: { slot: number; holder: string } | undefined;
}

/**
 * Opens a session at the first candidate that gives one (failover), records its payment and stores it on the
 * link: `opened`, the session the buyer is sent to (with the link as stored); `decide_again` when a concurrent
 * request stored its own session first (ours is ended); `unavailable` when no candidate gave one.
 */
export async function openSession(
  deps: SessionOpeningDependencies,
  opening: Opening,
  candidates: readonly PspConnection[],
  health: ReadonlyMap<string, ConnectionHealth>,
  budget: PspCallBudget,
  now: Date,
): Promise<SessionOpening> {
  const { link, amount, client } = opening;
  const tried: TriedAttempt[] = [];
  for (const connection of candidates) {
    const admitted = await admission(deps, connection, health, budget, now);
    if (admitted === 'stop') break;
    if (admitted === 'skip') continue;
    budget.spend();
    const opened = await tryConnection(deps, opening, connection, health.get(connection.id), tried);
    if ('failed' in opened) {
      tried.push(opened.failed);
      continue;
    }
    if (tried.length > 0) putMetrics({ Failovers: 1 }, { connection: connection.id });
    const session = { ...opened.session, amount };
    const { psp } = opened;
    const payment = {
      ...startedPayment(
        {
          id: session.payment_id,
          link,
          connection,
          amount,
          openedBy: client,
          firstAttemptId: opening.firstAttemptId,
          routing: opening.routing && attemptDecision(opening.routing, connection.id, tried),
          clientReferenceId: opening.references?.client_reference_id,
        },
        session,
        deps.now(),
      ),
      ...opening.answers,
      // The trial of a connection down for outages: its outcome says whether the connection is back.
      ...(admitted.outageTrial ? { health_trial: true as const } : {}),
    };
    const unused = { psp, session, payment, budget };
    return link.reusable ? attachBuyerSession(deps, opening, unused) : storeLinkSession(deps, link, unused);
  }
  return { kind: 'unavailable' };
}

/**
 * A single-use link's new session is the link's (`psp_session`), stored with a write conditioned on the version
 * the decision read, beside its payment: either record says the session is open (`openSessions`). When another
 * write got there first (another tab stored its session, or a transition), our session is not the link's and no
 * buyer was sent to it: it is ended and the decision taken afresh.
 */
async function storeLinkSession(
  deps: SessionOpeningDependencies,
  link: PaymentLink,
  unused: UnusedSession,
): Promise<SessionOpening> {
  const { session, payment, psp } = unused;
  const updated = withSession(link, session);
  const [stored, recorded] = await Promise.allSettled([
    deps.links.saveSession(link, updated),
    deps.payments.save(payment),
  ]);
  if (recorded.status === 'rejected') {
    // The notification or the sweeper creates it from what the PSP says.
    logger.warn('Payment not recorded at session creation', {
      payment_id: payment.id,
      error: recorded.reason,
    });
  }
  if (stored.status === 'fulfilled') {
    return { kind: 'opened', link: updated, session, pspOrigin: psp.checkoutOrigin };
  }
  if (!(stored.reason instanceof ConcurrentModificationError)) throw stored.reason;
  await endUnusedSession(deps, unused, recorded.status === 'fulfilled');
  return { kind: 'decide_again' };
}

/** A session we opened and sent no buyer to, with its payment and the request's budget. */
interface UnusedSession {
  psp: Psp;
  session: LinkSession;
  payment: Payment;
  budget: PspCallBudget;
}

/**
 * Ends a session no buyer was sent to (a concurrent write won, or its payment could not be recorded), whenever
 * the time left allows a call: it is ours to clean up, not the visitor's cost. Its payment, when `recorded`, is
 * recorded canceled (`recordEndedByUs`, read again when another write changed it); a session its PSP would not end
 * stays on the sweeper's list through that payment.
 */
async function endUnusedSession(
  deps: SessionOpeningDependencies,
  { psp, session, payment, budget }: UnusedSession,
  recorded: boolean,
): Promise<void> {
  // A PSP that cannot end a session early leaves it to lapse at its expiry, on the sweeper's list through its payment.
  if (!canEndSessions(psp) || !budget.hasTimeForOne()) return;
  budget.spend();
  const answer = await psp.expireSession(session).catch((error: unknown) => {
    logger.warn('Could not expire an unused PSP session', { session_id: session.id, error });
    return undefined;
  });
  if (answer === 'ended' && recorded) await recordEndedByUs(deps, { payment, recorded });
}

/**
 * A reusable link's new session is the buyer's own (docs/orchestration.md#reusable-links): its payment is
 * recorded first (the only record of an open attempt: a session whose payment cannot be recorded is ended, and
 * the buyer gets an error page), then the link's version moves on with a write conditioned only on the link
 * being open (and, on a link with places, on the opening still holding its place, which passes to the payment
 * until the session's expiry), so buyers never conflict with each other but a cancel or expiry that read the
 * link before reads it again, with this payment, and ends its session. A link that stopped being open meanwhile
 * (or a place lost) gets the session ended and the decision taken afresh; a write that fails otherwise ends it
 * too, before the error is thrown.
 */
async function attachBuyerSession(
  deps: SessionOpeningDependencies,
  opening: Opening,
  unused: UnusedSession,
): Promise<SessionOpening> {
  const { link, place } = opening;
  try {
    await deps.payments.save(unused.payment);
  } catch (error) {
    await endUnusedSession(deps, unused, false);
    throw error;
  }
  try {
    if (!place) await deps.links.noteSession(link);
    else {
      const until = unused.session.expires_at;
      await deps.links.keepPlace(link, place.slot, place.holder, { holder: unused.payment.id, until });
    }
  } catch (error) {
    // No buyer is sent to a session this write did not record (nor one whose place is not its payment's).
    await endUnusedSession(deps, unused, true);
    if (!(error instanceof ConcurrentModificationError)) throw error;
    return { kind: 'decide_again' };
  }
  return { kind: 'opened', link, session: unused.session, pspOrigin: unused.psp.checkoutOrigin };
}

/**
 * Whether the opening tries `connection` next (`nextAttempt`): `stop`, `skip` (down, or another instance claimed
 * its one trial by the conditional write that claims it), or try it; `outageTrial` when this instance claimed the
 * trial of a connection down for outages, whose session's outcome then decides.
 */
async function admission(
  deps: SessionOpeningDependencies,
  connection: PspConnection,
  health: ReadonlyMap<string, ConnectionHealth>,
  budget: PspCallBudget,
  now: Date,
): Promise<'stop' | 'skip' | { outageTrial: boolean }> {
  const known = health.get(connection.id);
  const next = nextAttempt(budget.left(), known, now);
  if (next === 'stop' || next === 'skip') return next;
  if (next === 'try') return { outageTrial: false };
  const claim = (current: ConnectionHealth) => claimTrial(current, now, TRIAL_LEASE_MS);
  const claimed = await deps.psps.updateHealth(connection, claim, known ?? INITIAL_HEALTH);
  return claimed ? { outageTrial: isDownForOutages(claimed) } : 'skip';
}

/** What the PSP is asked to open for the attempt `paymentId` (see `SessionRequest`). */
function sessionRequest(
  deps: SessionOpeningDependencies,
  {
    link,
    amount,
    locale,
    references,
    lines,
    answers,
    mandate,
  }: Pick<Opening, 'link' | 'amount' | 'locale' | 'references' | 'lines' | 'answers' | 'mandate'>,
  connection: PspConnection,
  psp: Psp,
  paymentId: string,
): SessionRequest {
  return {
    // Every adapter sends the PSP the link's lines (`linesCharging`): the ones the buyer picked, adding up to
    // `amount`.
    link: lines ? linkAsPicked(link, lines, amount) : link,
    amount,
    // A PSP that takes the money only when we capture returns the buyer to us first (`captureOnReturn`).
    successUrl: canCaptureLater(psp)
      ? `${deps.checkoutBase}/${link.id}/complete?payment=${paymentId}`
      : (link.redirect_url ?? `${deps.checkoutBase}/${link.id}/complete`),
    cancelUrl: `${deps.checkoutBase}/${link.id}?canceled=1`,
    notificationUrl: `${deps.baseUrl}/psp/${connection.provider}/notifications/${connection.id}`,
    expiresAt: sessionExpiry(link, deps.now(), psp.sessionLimits),
    paymentId,
    locale,
    paymentMethods: methodsFor(link.payment_methods, connection.methods),
    ...(references ? { references } : {}),
    ...(answers?.buyer ? { buyer: answers.buyer } : {}),
    ...pspPageAsks(link, deps.psps.rules(connection.provider).pageAsks),
    ...(mandate ? { opensMandate: mandateOfAttempt(mandate, paymentId) } : {}),
  };
}

/** What the connection's hosted page (which can ask `page`) is to ask of the link's `collect` (ours asks the rest first). */
function pspPageAsks(link: PaymentLink, page: PageAsks): { pageAsks?: BuyerDetail[] } {
  const asks = detailsPspPageAsks(link.collect, page);
  return asks.length > 0 ? { pageAsks: asks } : {};
}

/** The link with the lines the buyer picked, adding up to `amount` (only a lines link has lines to pick). */
function linkAsPicked(link: PaymentLink, lines: readonly LineItem[], amount: Amount): PaymentLink {
  return link.amount_kind === 'line_items' ? { ...link, line_items: [...lines], amount } : link;
}

/**
 * One attempt: a session at this connection, or (on a failure that is not the buyer's) a failed payment with
 * `psp_unavailable` and the opening's decision (naming the attempts `tried` before it), counted against the
 * connection's health unless its PSP refused this link (`countsAgainstHealth`); it answers what the next
 * attempt's decision names of it. Health writes are best effort: a lost one never fails the buyer's request.
 */
async function tryConnection(
  deps: SessionOpeningDependencies,
  opening: Opening,
  connection: PspConnection,
  health: ConnectionHealth | undefined,
  tried: readonly TriedAttempt[],
): Promise<{ session: PspSession; psp: Psp } | { failed: TriedAttempt }> {
  const { link, amount } = opening;
  const paymentId = newPaymentId(deps.now(), link.payments_in_order);
  try {
    const psp = await deps.psps.adapter(connection);
    const session = await psp.createSession(sessionRequest(deps, opening, connection, psp, paymentId));
    if (health && afterSuccess(health)) {
      await deps.psps
        .updateHealth(connection, afterSuccess, health)
        .catch((error: unknown) =>
          logger.warn('Connection health not recorded', { connection_id: connection.id, error }),
        );
    }
    return { session, psp };
  } catch (error) {
    const refused = reportFailedAttempt(opening, connection, paymentId, error);
    const now = deps.now();
    const failed = unavailablePayment(
      {
        id: paymentId,
        link,
        connection,
        amount,
        firstAttemptId: opening.firstAttemptId,
        routing: opening.routing && attemptDecision(opening.routing, connection.id, tried),
        clientReferenceId: opening.references?.client_reference_id,
      },
      refused
        ? `${connection.provider} refused to open a session for this payment link.`
        : `${connection.provider} could not open a session.`,
      now,
    );
    await Promise.all([
      deps.payments
        .save(failed)
        .catch((saveError: unknown) =>
          logger.warn('Failed attempt not recorded', { payment_id: paymentId, error: saveError }),
        ),
      countsAgainstHealth(connection, refused)
        ? deps.psps
            .updateHealth(connection, (current) => afterFailure(current, now), health)
            .catch((healthError: unknown) =>
              logger.warn('Connection health not recorded', {
                connection_id: connection.id,
                error: healthError,
              }),
            )
        : undefined,
    ]);
    return {
      failed: {
        connection_id: connection.id,
        payment_id: paymentId,
        outcome: refused ? 'refused' : 'unavailable',
      },
    };
  }
}

/**
 * Counts and logs an attempt that opened no session, and answers whether its PSP refused this link. A PSP's failure
 * the adapter classified is expected here, and failed over: its message and causes say what happened, its stack only
 * where it was classified. Anything else is ours: logged with its stack.
 */
function reportFailedAttempt(
  opening: Opening,
  connection: PspConnection,
  paymentId: string,
  error: unknown,
): boolean {
  const failure = pspFailureOf(error);
  const refused = failure?.kind === 'refused';
  putMetrics({ PspSessionFailures: 1 }, { connection: connection.id });
  putMetrics({ PaymentsFailed: 1 }, { provider: connection.provider });
  const logged = withoutPersonalData(
    error,
    [opening.references?.client_reference_id, opening.references?.prefilled_email],
    { ownStack: failure === undefined },
  );
  logger.warn(
    refused
      ? 'PSP refused the session: trying the next connection'
      : 'PSP session creation failed: trying the next connection',
    {
      link_id: opening.link.id,
      connection_id: connection.id,
      provider: connection.provider,
      payment_id: paymentId,
      error: logged,
    },
  );
  return refused;
}
