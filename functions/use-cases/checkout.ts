import { amountDue } from '../domain/amount.ts';
import { ANSWER_ROOM_MS, PSP_CALL_TIMEOUT_MS } from '../domain/call-budgets.ts';
import {
  amountAtStake,
  CALLS_TO_END_A_SESSION,
  clientKey,
  isPreviewRequest,
  nextCheckoutStep,
  sessionExpiry,
  withSession,
} from '../domain/checkout.ts';
import { BUILT_IN_SANDBOX_ID, type PspConnection } from '../domain/connection.ts';
import {
  afterFailure,
  afterSuccess,
  awaitsTrial,
  type ConnectionHealth,
  claimTrial,
  INITIAL_HEALTH,
  isAvailable,
} from '../domain/connection-health.ts';
import { ConcurrentModificationError, PspNotConfiguredError } from '../domain/errors.ts';
import { resolveLocale } from '../domain/locale.ts';
import type { Amount } from '../domain/money.ts';
import {
  endedByUs,
  newPaymentId,
  type Payment,
  paymentAmount,
  startedPayment,
  unavailablePayment,
} from '../domain/payment.ts';
import {
  amountSourceOf,
  effectiveStatus,
  type PaymentLink,
  type PspSession,
  paidAmount,
} from '../domain/payment-link.ts';
import { methodsFor } from '../domain/payment-methods.ts';
import { MODES } from '../domain/principal.ts';
import { pspAmountProblem } from '../domain/psp-amounts.ts';
import { routeLink } from '../domain/routing.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import type { PaymentRepository } from '../ports/payment-repository.ts';
import { type Psp, PspRefusalError } from '../ports/psp.ts';
import type { PspConnections } from './psp-connections.ts';
import { type AttemptEnd, endAttempt } from './session-endings.ts';

export interface CheckoutDependencies {
  links: LinkRepository;
  payments: PaymentRepository;
  psps: PspConnections;
  now: () => Date;
  checkoutBase: string;
  /** Public base of the service: PSP notification addresses are built on it. */
  baseUrl: string;
  /** Uniform in [0, 1): draws of weighted splits. */
  random: () => number;
  /** Time left before the function times out. */
  timeLeftMs: () => number;
  /** PSP calls one request may make at most (its function's declared call budget, lib/routes.ts). */
  maxPspCalls: number;
}

export interface CheckoutRequest {
  id: string;
  method: string;
  headers: Record<string, string | undefined>;
  /**
   * The buyer asked to pay with another payment provider (`?via=next`; the page never names a connection).
   * Honoured only after an attempt that ended unpaid (docs/checkout.md).
   */
  via?: string | undefined;
  /** The buyer came back from the PSP without paying (`?canceled=1`, our cancel address). */
  returned?: boolean | undefined;
  /**
   * The amount the buyer typed on our page (`POST {checkout_base}/{id}`, a link with `amount_range`), as typed:
   * read in the page's locale (docs/checkout.md#buyer-chosen-amounts). Undefined: a visit (GET).
   */
  amount?: string | undefined;
  /** On a reusable link: the payment the buyer's cookie names, their last attempt (docs/checkout.md#reusable-links). */
  buyerPayment?: string | undefined;
  /** The address the request came from: a buyer without a cookie is known by it (`clientKey`). */
  sourceAddress: string;
  /**
   * A form another site sent (docs/security.md#checkout-sessions): shown as a preview, so that no other site can
   * open a session for a buyer or choose its amount.
   */
  foreign?: boolean | undefined;
}

/**
 * A session found paid while it is being ended is recorded at once, and its event committed with the link; the
 * public-facing checkout function has no right to send to the queue (least privilege), so the outbox sweeper
 * hands that event over within its minute (docs/webhooks.md).
 */
const LEFT_TO_THE_OUTBOX: EventQueue = { publish: async () => undefined };

/** The value of `?via=` on the "pay with another payment provider" link. */
export const VIA_ANOTHER_PROVIDER = 'next';

/** What the checkout page shows. */
export type CheckoutView =
  | { kind: 'not_found' }
  | { kind: 'paid'; link: PaymentLink }
  | { kind: 'gone'; link: PaymentLink; status: 'canceled' | 'expired' | 'completed' }
  /** A preview or prefetch: the page without a PSP session. */
  | { kind: 'preview'; link: PaymentLink }
  /** Forward to the PSP's page. */
  | { kind: 'forward'; link: PaymentLink; session: PspSession; pspOrigin: string }
  /**
   * The buyer is back after an attempt that ended unpaid: try again, or (`another`) pay with another payment
   * provider; no session is opened until they choose.
   */
  | { kind: 'choose'; link: PaymentLink; another: boolean; amount: Amount }
  /**
   * A buyer-chosen amount (`amount_range`): the form asks for it, again with `problem` when the amount the buyer
   * `entered` was refused (`not_payable`: within the range, but no connection serving the link can take it).
   */
  | {
      kind: 'ask';
      link: PaymentLink;
      problem?: 'missing' | 'invalid' | 'ambiguous' | 'out_of_range' | 'not_payable';
      entered?: string | undefined;
    }
  /**
   * No session can be shown: every connection failed (or is down, or cannot take the amount), or an open
   * session could be neither ended nor shown. The link stays open; `retryAt` when it is known.
   */
  | { kind: 'unavailable'; link: PaymentLink; retryAt?: Date | undefined }
  /** Too many sessions were opened for this link lately (docs/security.md#checkout): try again at `retryAt`. */
  | { kind: 'throttled'; link: PaymentLink; retryAt: Date }
  /**
   * A reusable link whose payments and payable sessions reach `max_payments`: no place is left for now; one may
   * free up at `retryAt`, when another buyer's session expires unpaid.
   */
  | { kind: 'full'; link: PaymentLink; retryAt?: Date | undefined };

/**
 * Checkout pages carry no key, so the link is found by id alone: the id is 142 random bits and names at most
 * one link, stored under one mode, so both modes are read (two strongly consistent GetItems, in parallel).
 */
export async function findLinkById(links: LinkRepository, id: string): Promise<PaymentLink | undefined> {
  const found = await Promise.all(MODES.map((mode) => links.get(id, mode)));
  return found.find((link) => link !== undefined);
}

/**
 * What the buyer back on our return page is told: whether they have paid (a single-use link is paid; on a
 * reusable link, the payment their cookie names succeeded), and the amount of their own attempt. A reusable
 * link's buyers never see each other's amounts (docs/checkout.md#reusable-links): without a cookie naming one
 * of its payments, the page shows the link's own amount, or its range.
 */
export async function buyerOutcome(
  payments: Pick<PaymentRepository, 'get'>,
  link: PaymentLink,
  buyerPayment: string | undefined,
): Promise<{ paid: boolean; amount: Amount | undefined }> {
  if (!link.reusable) {
    const amount = link.payment ? paidAmount(link, link.payment) : (link.psp_session?.amount ?? undefined);
    return { paid: link.status === 'paid', amount: amount ?? link.amount ?? undefined };
  }
  const own = buyerPayment === undefined ? undefined : await payments.get(link.id, link.mode, buyerPayment);
  return {
    paid: own?.status === 'succeeded',
    amount: own ? paymentAmount(own, link) : (link.amount ?? undefined),
  };
}

/** Decisions one request takes at most: each ends a session, opens one, or loses a race and reads again. */
const MAX_ROUNDS = 6;

/**
 * The PSP calls one checkout request may still make: its function's declared count (`maxPspCalls`) and what fits
 * in the time left. Counted here only: the decision reads `left()`, and each call is `spend`t where it is made.
 */
class PspCallBudget {
  private used = 0;
  private readonly deps: Pick<CheckoutDependencies, 'maxPspCalls' | 'timeLeftMs'>;

  constructor(deps: Pick<CheckoutDependencies, 'maxPspCalls' | 'timeLeftMs'>) {
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
 * `GET {checkout_base}/{id}`: decides the page, and for a buyer on an open link shows, ends or opens PSP
 * sessions (docs/orchestration.md#sessions, #failover). Each round reads the link, its payments and its
 * connections, takes one pure decision (`nextCheckoutStep`) and carries it out: show an open session; end an
 * open session at its PSP (a session the PSP will not end is asked about: paid is recorded at once, still
 * payable is never replaced); or open one, trying each candidate connection in turn within this request. A
 * failure that is not the buyer's (no answer within the PSP call bound, 5xx, 429, refused credentials) is
 * recorded as a failed payment (`psp_unavailable`) and counts against the connection's health; a refusal of
 * this link by the PSP is recorded the same way but does not count; connections that are `down` are skipped.
 * The session is stored on the link with a write conditioned on `version`; when a concurrent write wins, the
 * unused session is ended and the decision taken afresh.
 */
export async function openCheckout(
  given: CheckoutDependencies,
  request: CheckoutRequest,
): Promise<CheckoutView> {
  // Attempts of one request get increasing times, so "newest first" lists them in the order they were made.
  const deps = { ...given, now: strictlyIncreasing(given.now) };
  const budget = new PspCallBudget(deps);
  const unendable = new Set<string>();
  let last: PaymentLink | undefined;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const link = await findLinkById(deps.links, request.id);
    if (!link) return { kind: 'not_found' };
    last = link;
    const now = deps.now();
    const status = effectiveStatus(link, now);
    if (status === 'paid') return { kind: 'paid', link };
    if (status === 'canceled' || status === 'expired' || status === 'completed') {
      return { kind: 'gone', link, status };
    }
    if (request.foreign || isPreviewRequest(request.method, request.headers))
      return { kind: 'preview', link };
    if (round === 1) putMetrics({ CheckoutVisits: 1 });
    const locale = resolveLocale(link.locale, request.headers['accept-language']);
    // A buyer-chosen amount is checked before anything is read or opened; a refused one is asked for again.
    const due =
      request.amount === undefined
        ? undefined
        : amountDue(amountSourceOf(link), { amount: request.amount, locale });
    if (due && !due.ok) return { kind: 'ask', link, problem: due.problem, entered: request.amount };
    // What a new session charges (docs/orchestration.md#payments): undefined while the buyer has not chosen.
    const amount = link.amount ?? (due?.ok ? due.amount : undefined);

    const [{ connections, routing }, payments] = await Promise.all([
      deps.psps.directory(link.account, link.mode),
      deps.payments.listOfLink(link.id, link.mode),
    ]);
    const health = new Map(connections.map((state) => [state.connection.id, state.health]));
    const own = payments.find((payment) => payment.id === request.buyerPayment);
    const client = clientKey(link.id, link.reusable ? own : undefined, request.sourceAddress);
    const atStake = amountAtStake(link, payments, amount, request.buyerPayment);
    const routed = routeLink(
      { ...link, amount: atStake },
      routing,
      connections.map((state) => state.connection),
      deps.random,
    );
    const step = nextCheckoutStep({
      link,
      payments,
      routed,
      amount,
      amountProblems: amount ? amountProblems(link, amount, routed) : new Map(),
      now,
      wantsAnother: request.via !== undefined,
      returned: request.returned === true,
      unendable,
      buyerPayment: request.buyerPayment,
      client,
      pspCallsLeft: budget.left(),
    });
    // No connection serves the link: an open session is still shown or ended, nothing new is offered.
    if (routed.length === 0 && step.kind !== 'show' && step.kind !== 'end') throw new PspNotConfiguredError();
    switch (step.kind) {
      case 'show':
        return {
          kind: 'forward',
          link,
          session: step.session,
          pspOrigin: await pspOrigin(deps, link, step.session),
        };
      case 'choose':
        return { kind: 'choose', link, another: step.another, amount: atStake };
      case 'ask':
        return {
          kind: 'ask',
          link,
          ...(step.problem ? { problem: step.problem, entered: request.amount } : {}),
        };
      case 'wait':
        if (step.reason === 'full') return { kind: 'full', link, retryAt: step.until ?? undefined };
        return step.reason === 'throttled' && step.until
          ? { kind: 'throttled', link, retryAt: step.until }
          : { kind: 'unavailable', link, retryAt: step.until ?? undefined };
      case 'end': {
        const ended = await endSession(deps, link, payments, step.session, budget);
        if (ended === 'open') unendable.add(step.session.payment_id);
        continue;
      }
      case 'open': {
        const opened = await openSession(
          deps,
          { link, amount: atStake, locale, client },
          step.candidates,
          health,
          budget,
          now,
        );
        if (opened === 'decide_again') continue;
        return opened;
      }
    }
  }
  return { kind: 'unavailable', link: last as PaymentLink };
}

/**
 * Why routed connections cannot take the link's amount, from each provider's rules (`pspAmountProblem`, no call
 * made): such a connection is not asked, and that counts nothing against its health.
 */
function amountProblems(
  link: PaymentLink,
  amount: Amount,
  routed: readonly PspConnection[],
): Map<string, string> {
  const problems = new Map<string, string>();
  for (const connection of routed) {
    const problem = pspAmountProblem(connection.provider, amount, 'payment');
    if (problem) {
      problems.set(connection.id, problem);
      logger.debug('Connection skipped: it cannot take the amount', {
        link_id: link.id,
        connection_id: connection.id,
        reason: problem,
      });
    }
  }
  return problems;
}

/** The origin of the session's PSP page, for the page's `form-action`. */
async function pspOrigin(
  deps: CheckoutDependencies,
  link: PaymentLink,
  session: PspSession,
): Promise<string> {
  try {
    const connection = await deps.psps.sessionConnection(link.account, link.mode, session);
    return (await deps.psps.adapter(connection)).checkoutOrigin;
  } catch {
    // A connection removed since: the session's own page still takes the buyer.
    return new URL(session.url).origin;
  }
}

/**
 * Ends an open session at its PSP before another may be opened, by the rule every caller shares (`endAttempt`,
 * functions/use-cases/session-endings.ts): `ended` (its payment is recorded canceled, or as the PSP says it
 * ended), `paid` (the PSP refused because it was paid: recorded now, with its event, so the link is paid), or
 * `open` (the PSP refused because it may still be paid, as Mollie does once the buyer started paying; or the PSP
 * could not be asked): it is not replaced. The decision only asks for this with `CALLS_TO_END_A_SESSION` left.
 */
async function endSession(
  deps: CheckoutDependencies,
  link: PaymentLink,
  payments: readonly Payment[],
  session: PspSession,
  budget: PspCallBudget,
): Promise<AttemptEnd> {
  const stored = payments.find((candidate) => candidate.id === session.payment_id);
  budget.spend(CALLS_TO_END_A_SESSION);
  try {
    // A session stored on the link whose payment was never recorded gets its payment now, canceled.
    const payment =
      stored ??
      startedPayment(
        {
          id: session.payment_id,
          link,
          connection: await deps.psps.sessionConnection(link.account, link.mode, session),
          amount: paymentAmount(session, link),
        },
        session,
        deps.now(),
      );
    return await endAttempt({ ...deps, queue: LEFT_TO_THE_OUTBOX, pspSessions: deps.psps }, link, session, {
      payment,
      recorded: stored !== undefined,
    });
  } catch (error) {
    logger.warn('Open PSP session not ended: no new session is opened', {
      link_id: link.id,
      payment_id: session.payment_id,
      connection_id: session.connection_id,
      error,
    });
    return 'open';
  }
}

/** What a new session is for: the link, the amount it charges, the buyer's locale, and who asked (`clientKey`). */
interface Opening {
  link: PaymentLink;
  amount: Amount;
  locale: string;
  client: string;
}

/**
 * Opens a session at the first candidate that gives one (failover), records its payment and stores it on the
 * link. `decide_again` when a concurrent request stored its own session first (ours is ended).
 */
async function openSession(
  deps: CheckoutDependencies,
  opening: Opening,
  candidates: readonly PspConnection[],
  health: ReadonlyMap<string, ConnectionHealth>,
  budget: PspCallBudget,
  now: Date,
): Promise<CheckoutView | 'decide_again'> {
  const { link, amount, client } = opening;
  let failures = 0;
  for (const connection of candidates) {
    if (budget.left() < 1) break;
    if (!(await mayTry(deps, connection, health.get(connection.id), now))) continue;
    budget.spend();
    const opened = await tryConnection(deps, opening, connection, health.get(connection.id));
    if (!opened) {
      failures++;
      continue;
    }
    if (failures > 0) putMetrics({ Failovers: 1 }, { connection: connection.id });
    const session = { ...opened.session, amount };
    const { psp } = opened;
    const payment = startedPayment(
      { id: session.payment_id, link, connection, amount, openedBy: client },
      session,
      deps.now(),
    );
    const unused = { psp, session, payment, budget };
    if (link.reusable) return attachBuyerSession(deps, link, unused);
    const updated = withSession(link, session);
    // Either record says the session is open (openSessions): the link's own, or its pending payment.
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
      return { kind: 'forward', link: updated, session, pspOrigin: psp.checkoutOrigin };
    }
    if (!(stored.reason instanceof ConcurrentModificationError)) throw stored.reason;
    // Someone else changed the link first (another tab stored its session, or a transition): our session
    // is not the link's and no buyer was sent to it, so end it and decide again from what is stored now.
    await endUnusedSession(deps, unused, recorded.status === 'fulfilled');
    return 'decide_again';
  }
  return { kind: 'unavailable', link };
}

/** A session we opened and sent no buyer to, with its payment and the request's budget. */
interface UnusedSession {
  psp: Psp;
  session: PspSession;
  payment: Payment;
  budget: PspCallBudget;
}

/**
 * Ends a session no buyer was sent to (a concurrent write won, or its payment could not be recorded), whenever
 * the time left allows a call: it is ours to clean up, not the visitor's cost. Its payment, when `recorded`, is
 * recorded canceled; a session its PSP would not end stays on the sweeper's list through that payment.
 */
async function endUnusedSession(
  deps: CheckoutDependencies,
  { psp, session, payment, budget }: UnusedSession,
  recorded: boolean,
): Promise<void> {
  if (!budget.hasTimeForOne()) return;
  budget.spend();
  const answer = await psp.expireSession(session).catch((error: unknown) => {
    logger.warn('Could not expire an unused PSP session', { session_id: session.id, error });
    return undefined;
  });
  const ended = answer === 'ended' && recorded && endedByUs(payment, deps.now());
  if (ended) await deps.payments.save(ended, payment).catch(() => undefined);
}

/**
 * A reusable link's new session is the buyer's own (docs/orchestration.md#reusable-links): its payment is
 * recorded first (the only record of an open attempt: a session whose payment cannot be recorded is ended, and
 * the buyer gets an error page), then the link's version moves on with a write conditioned only on the link
 * being open, so buyers never conflict with each other but a cancel or expiry that read the link before reads it
 * again, with this payment, and ends its session. A link that stopped being open meanwhile gets the session
 * ended and the decision taken afresh.
 */
async function attachBuyerSession(
  deps: CheckoutDependencies,
  link: PaymentLink,
  unused: UnusedSession,
): Promise<CheckoutView | 'decide_again'> {
  try {
    await deps.payments.save(unused.payment);
  } catch (error) {
    await endUnusedSession(deps, unused, false);
    throw error;
  }
  try {
    await deps.links.noteSession(link);
  } catch (error) {
    if (!(error instanceof ConcurrentModificationError)) throw error;
    await endUnusedSession(deps, unused, true);
    return 'decide_again';
  }
  return { kind: 'forward', link, session: unused.session, pspOrigin: unused.psp.checkoutOrigin };
}

function strictlyIncreasing(now: () => Date): () => Date {
  let last = 0;
  return () => {
    last = Math.max(now().getTime(), last + 1);
    return new Date(last);
  };
}

/**
 * Whether the connection may be tried now: yes unless it is `down`; a connection whose down time is over gets
 * one trial, claimed by a conditional write so that only one instance makes it.
 */
async function mayTry(
  deps: CheckoutDependencies,
  connection: PspConnection,
  known: ConnectionHealth | undefined,
  now: Date,
): Promise<boolean> {
  const health = known ?? INITIAL_HEALTH;
  if (isAvailable(health, now)) return true;
  if (!awaitsTrial(health, now)) return false;
  const claimed = await deps.psps.updateHealth(
    connection,
    (current) => claimTrial(current, now, PSP_CALL_TIMEOUT_MS + ANSWER_ROOM_MS),
    health,
  );
  return claimed !== undefined;
}

/**
 * One attempt: a session at this connection, or (on a failure that is not the buyer's) a failed payment with
 * `psp_unavailable`. Only the PSP's own failures (no answer, network errors, 5xx, 429, refused credentials) count
 * against the connection's health; its refusal of this link (`PspRefusalError`: an amount or currency it does
 * not take) does not, as the next link may be fine. Health writes are best effort: a lost one never fails the
 * buyer's request.
 */
async function tryConnection(
  deps: CheckoutDependencies,
  { link, amount, locale }: Opening,
  connection: PspConnection,
  health: ConnectionHealth | undefined,
) {
  const paymentId = newPaymentId();
  try {
    const psp = await deps.psps.adapter(connection);
    const now = deps.now();
    const session = await psp.createSession({
      link,
      amount,
      successUrl: link.redirect_url ?? `${deps.checkoutBase}/${link.id}/complete`,
      cancelUrl: `${deps.checkoutBase}/${link.id}?canceled=1`,
      notificationUrl: `${deps.baseUrl}/psp/${connection.provider}/notifications/${connection.id}`,
      expiresAt: sessionExpiry(link, now, psp.sessionLimits),
      paymentId,
      locale,
      paymentMethods: methodsFor(link.payment_methods, connection.methods),
    });
    if (health && afterSuccess(health)) {
      await deps.psps
        .updateHealth(connection, afterSuccess, health)
        .catch((error: unknown) =>
          logger.warn('Connection health not recorded', { connection_id: connection.id, error }),
        );
    }
    return { session, psp };
  } catch (error) {
    const refused = error instanceof PspRefusalError;
    putMetrics({ PspSessionFailures: 1 }, { connection: connection.id });
    putMetrics({ PaymentsFailed: 1 }, { provider: connection.provider });
    logger.warn(
      refused
        ? 'PSP refused the session: trying the next connection'
        : 'PSP session creation failed: trying the next connection',
      {
        link_id: link.id,
        connection_id: connection.id,
        provider: connection.provider,
        payment_id: paymentId,
        error,
      },
    );
    const now = deps.now();
    const failed = unavailablePayment(
      { id: paymentId, link, connection, amount },
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
      connection.id === BUILT_IN_SANDBOX_ID || refused
        ? undefined
        : deps.psps
            .updateHealth(connection, (current) => afterFailure(current, now), health)
            .catch((healthError: unknown) =>
              logger.warn('Connection health not recorded', {
                connection_id: connection.id,
                error: healthError,
              }),
            ),
    ]);
    return undefined;
  }
}
