import { collectNeeding } from '../domain/buyer.ts';
import { loadFormTables, readingNeedsTables } from '../domain/checkout/form-tables.ts';
import { type CheckoutPlan, outcomesToRead, planCheckout, type RoundFacts } from '../domain/checkout/plan.ts';
import { CALLS_TO_END_A_SESSION } from '../domain/checkout/sessions.ts';
import type { CheckoutView } from '../domain/checkout/views.ts';
import { type CheckoutRequest, checkoutVisit, type Visit } from '../domain/checkout/visit.ts';
import { PspNotConfiguredError } from '../domain/errors.ts';
import type { OutcomeWindows } from '../domain/outcomes.ts';
import { type Payment, paymentAmount, startedPayment } from '../domain/payment.ts';
import type { PaymentLink, PspSession } from '../domain/payment-link.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import { findLinkById, pspOrigin } from './checkout-reads.ts';
import { openInPlace } from './place-holds.ts';
import { type AttemptEnd, endAttempt } from './session-endings.ts';
import { PspCallBudget, type SessionOpeningDependencies } from './session-openings.ts';
import { paymentsToDecideOn } from './visit-payments.ts';

export interface CheckoutDependencies extends SessionOpeningDependencies {
  /** Uniform in [0, 1): draws of weighted splits and of learning strategies. */
  random: () => number;
  /** Observed outcomes by connection and segment key (`ObservedOutcomes`): what `optimize` rules learn from. */
  observed?: {
    windows(ids: readonly string[]): Promise<ReadonlyMap<string, ReadonlyMap<string, OutcomeWindows>>>;
  };
}

/**
 * A session found paid while it is being ended is recorded at once, and its event committed with the link; the
 * public-facing checkout function has no right to send to the queue (least privilege), so the outbox sweeper
 * hands that event over within its minute (docs/webhooks.md).
 */
export const LEFT_TO_THE_OUTBOX: EventQueue = { publish: async () => undefined };

export { buyerOutcome, findLinkById } from './checkout-reads.ts';

/** Decisions one request takes at most: each ends a session, opens one, or loses a race and reads again. */
const MAX_ROUNDS = 6;

/**
 * `GET {checkout_base}/{id}`: the page, and for a buyer on an open link the PSP sessions shown, ended or opened
 * (docs/orchestration.md#sessions, #failover). Each round reads the link (and answers at once a page that needs
 * no session: `checkoutVisit`), then its payments and its connections, takes the round's plan (`planCheckout`,
 * functions/domain/checkout/plan.ts), and carries it out: show an open session; end an open session at its PSP
 * (a session the PSP will not end is asked about: paid is recorded at once, still payable is never replaced); or
 * open one, trying the plan's candidates in turn within this request (`openSession`: a failure that is not the
 * buyer's is recorded as a failed payment and counts against the connection's health, by
 * functions/domain/checkout/failover.ts). The session is stored on the link with a write conditioned on
 * `version`; when a concurrent write wins, the unused session is ended and the round taken afresh.
 */
export async function openCheckout(
  given: CheckoutDependencies,
  request: CheckoutRequest,
): Promise<CheckoutView> {
  // Attempts of one request get increasing times, so "newest first" lists them in the order they were made.
  const deps = { ...given, now: strictlyIncreasing(given.now) };
  const round: Round = { budget: new PspCallBudget(deps), unendable: new Set<string>() };
  let last: PaymentLink | undefined;
  for (let count = 1; count <= MAX_ROUNDS; count++) {
    const link = await findLinkById(deps.links, request.id);
    // A posted form that may answer a phone number or an address is read with the form tables.
    const tables =
      link && request.form && readingNeedsTables(link.collect) ? await loadFormTables() : undefined;
    const visit = checkoutVisit(link, request, deps.now(), tables);
    if ('kind' in visit) return visit;
    last = visit.link;
    if (count === 1) putMetrics({ CheckoutVisits: 1 });
    const plan = planCheckout(await readRound(deps, request, visit, round));
    const view = await carryOut(deps, visit.link, plan, round);
    if (view) return view;
  }
  return { kind: 'unavailable', link: last as PaymentLink };
}

/** What one request carries from round to round: its PSP-call budget, and the sessions it could not end. */
interface Round {
  budget: PspCallBudget;
  unendable: Set<string>;
}

/**
 * What a round reads beside the link: its payments, its account's connections and routing, and for an `optimize`
 * rule the outcomes it learns from (read through the container's cache).
 */
async function readRound(
  deps: CheckoutDependencies,
  request: CheckoutRequest,
  visit: Visit,
  round: Round,
): Promise<RoundFacts> {
  const { link } = visit;
  const [{ connections, routing }, payments] = await Promise.all([
    deps.psps.directory(link.account, link.mode),
    paymentsToDecideOn(deps, link, request.buyerPayment),
  ]);
  const learnsFrom = outcomesToRead(visit, payments, routing, request.buyerPayment);
  const observed = learnsFrom && deps.observed ? await deps.observed.windows(learnsFrom) : undefined;
  // The form is read again as the connections' PSPs need it (`linkAsAsked`): a phone or an address needs the tables.
  const needs = connections.flatMap((state) => deps.psps.rules(state.connection.provider).needs ?? []);
  const tables =
    request.form && readingNeedsTables(collectNeeding(link.collect, needs))
      ? await loadFormTables()
      : undefined;
  return {
    visit,
    request,
    payments,
    connections,
    routing,
    observed,
    unendable: round.unendable,
    pspCallsLeft: round.budget.left(),
    now: deps.now(),
    random: deps.random,
    psps: deps.psps,
    tables,
  };
}

/** Carries out a round's plan: the page to answer, or undefined when the request plans again. */
async function carryOut(
  deps: CheckoutDependencies,
  link: PaymentLink,
  { action, skipped }: CheckoutPlan,
  round: Round,
): Promise<CheckoutView | undefined> {
  for (const [connectionId, reason] of skipped) {
    logger.debug('Connection skipped: it cannot take the amount', {
      link_id: link.id,
      connection_id: connectionId,
      reason,
    });
  }
  switch (action.kind) {
    case 'page':
      return action.view;
    case 'not_configured':
      throw new PspNotConfiguredError();
    case 'forward':
      return {
        kind: 'forward',
        link,
        session: action.session,
        pspOrigin: await pspOrigin(deps, link, action.session),
      };
    case 'end': {
      const ended = await endSession(deps, link, action, round.budget);
      if (ended === 'open' || ended === 'under_way') round.unendable.add(action.session.payment_id);
      return undefined;
    }
    case 'open': {
      const { opening, place, candidates, health } = action;
      const opened = await openInPlace(deps, opening, place, candidates, health, round.budget);
      if (opened.kind === 'decide_again') return undefined;
      return opened.kind === 'opened' ? { ...opened, kind: 'forward' } : { kind: 'unavailable', link };
    }
  }
}

/**
 * Ends an open session at its PSP before another may be opened, by the rule every caller shares (`endAttempt`,
 * functions/use-cases/session-endings.ts): `ended` (its payment is recorded canceled, or as the PSP says it
 * ended), `paid` (the PSP refused because it was paid: recorded now, with its event, so the link is paid), or
 * `open` (the PSP refused because it may still be paid, as some do once the buyer started paying; or the PSP
 * could not be asked) or `under_way` (refused, the buyer's money under way): it is not replaced. The plan only asks for this with `CALLS_TO_END_A_SESSION` left.
 */
async function endSession(
  deps: CheckoutDependencies,
  link: PaymentLink,
  { session, recorded: stored }: { session: PspSession; recorded: Payment | undefined },
  budget: PspCallBudget,
): Promise<AttemptEnd> {
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

function strictlyIncreasing(now: () => Date): () => Date {
  let last = 0;
  return () => {
    last = Math.max(now().getTime(), last + 1);
    return new Date(last);
  };
}
