import { amountDue } from '../domain/amount.ts';
import type { BuyerDetail } from '../domain/buyer.ts';
import type { PostedForm } from '../domain/buyer-answers.ts';
import type { BuyerReferences } from '../domain/buyer-references.ts';
import {
  amountAtStake,
  CALLS_TO_END_A_SESSION,
  type CheckoutStep,
  isPreviewRequest,
  nextCheckoutStep,
} from '../domain/checkout.ts';
import type { ConnectionHealth } from '../domain/connection-health.ts';
import { healthStatus } from '../domain/connection-health.ts';
import { PspNotConfiguredError } from '../domain/errors.ts';
import { resolveLocale } from '../domain/locale.ts';
import type { Amount } from '../domain/money.ts';
import { type OutcomeWindows, segmentKey, segmentOf } from '../domain/outcomes.ts';
import { firstAttemptFollowed, type Payment, paymentAmount, startedPayment } from '../domain/payment.ts';
import { effectiveStatus, type PaymentLink, type PspSession } from '../domain/payment-link.ts';
import {
  type RoutedLink,
  type Routing,
  type RoutingSignals,
  recoveryOf,
  routeDecision,
  ruleFor,
} from '../domain/routing.ts';
import type { RoutingDecision } from '../domain/routing-decision.ts';
import { clientKey } from '../domain/session-budgets.ts';
import { logger } from '../logger.ts';
import { putMetrics } from '../metrics.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import {
  type AskedForm,
  amountProblems,
  askedForm,
  candidatesWithDetails,
  type PostedAnswers,
  readPosted,
  servingPage,
} from './checkout-questions.ts';
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
  /**
   * The "before you pay" form as posted (docs/checkout.md#buyer-details): custom fields, quantities, details.
   * Undefined: not posted (a visit, or the amount form alone).
   */
  form?: PostedForm | undefined;
  /** On a reusable link: the payment the buyer's cookie names, their last attempt (docs/checkout.md#reusable-links). */
  buyerPayment?: string | undefined;
  /** The address the request came from: a buyer without a cookie is known by it (`clientKey`). */
  sourceAddress: string;
  /**
   * A form another site sent (docs/security.md#checkout-sessions): shown as a preview, so that no other site can
   * open a session for a buyer or choose its amount.
   */
  foreign?: boolean | undefined;
  /**
   * What the link's address said of the buyer (docs/api.md#buyer-references), well formed: carried to the payment
   * a new session opens and to its PSP.
   */
  references?: BuyerReferences | undefined;
}

/**
 * A session found paid while it is being ended is recorded at once, and its event committed with the link; the
 * public-facing checkout function has no right to send to the queue (least privilege), so the outbox sweeper
 * hands that event over within its minute (docs/webhooks.md).
 */
export const LEFT_TO_THE_OUTBOX: EventQueue = { publish: async () => undefined };

export { buyerOutcome, findLinkById } from './checkout-reads.ts';

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
      /** The questions our page asks first (custom fields, quantities, buyer details), when it asks any. */
      form?: AskedForm | undefined;
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

/** Decisions one request takes at most: each ends a session, opens one, or loses a race and reads again. */
const MAX_ROUNDS = 6;

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
  const round: Round = { budget: new PspCallBudget(deps), unendable: new Set<string>() };
  let last: PaymentLink | undefined;
  for (let count = 1; count <= MAX_ROUNDS; count++) {
    const visit = await readVisit(deps, request);
    if ('kind' in visit) return visit;
    last = visit.link;
    if (count === 1) putMetrics({ CheckoutVisits: 1 });
    const decision = await decide(deps, request, visit, round);
    const view = await perform(deps, request, decision, round);
    if (view) return view;
  }
  return { kind: 'unavailable', link: last as PaymentLink };
}

/** What one request carries from round to round: its PSP-call budget, and the sessions it could not end. */
interface Round {
  budget: PspCallBudget;
  unendable: Set<string>;
}

/** An open link a buyer visits, in their locale, with the amount a new session would charge (if known yet). */
interface Visit {
  link: PaymentLink;
  locale: string;
  amount: Amount | undefined;
  /** The answers posted and accepted, carried to the session; undefined while the page must still ask them. */
  answered?: PostedAnswers | undefined;
  /** The link may ask the buyer first and nothing was posted: the amount waits on what the page asks. */
  unanswered?: boolean;
}

/**
 * The link as this round reads it, or the page that needs no session at all: unknown, paid, over, a preview
 * (or a form another site sent), or a buyer-chosen amount that is refused before anything is read or opened.
 */
async function readVisit(
  deps: CheckoutDependencies,
  request: CheckoutRequest,
): Promise<Visit | CheckoutView> {
  const link = await findLinkById(deps.links, request.id);
  if (!link) return { kind: 'not_found' };
  const status = effectiveStatus(link, deps.now());
  if (status === 'paid') return { kind: 'paid', link };
  if (status === 'canceled' || status === 'expired' || status === 'completed') {
    return { kind: 'gone', link, status };
  }
  if (request.foreign || isPreviewRequest(request.method, request.headers)) return { kind: 'preview', link };
  const locale = resolveLocale(link.locale, request.headers['accept-language']);
  const due = request.amount === undefined ? undefined : amountDue(link, { amount: request.amount, locale });
  const posted = readPosted(link, due, request.form);
  if ('refused' in posted) return { kind: 'ask', link, ...posted.refused, entered: request.amount };
  // What a new session charges (docs/orchestration.md#payments): undefined while the buyer has not chosen.
  return { link, locale, ...posted };
}

/** One round's decision, with what carrying it out needs. */
interface Decision {
  visit: Visit;
  step: CheckoutStep;
  payments: Payment[];
  health: Map<string, ConnectionHealth>;
  atStake: Amount;
  client: string;
  routing: RoutingDecision;
  /** The form the page shows when it asks (`askedForm`), for the amount shown. */
  form: AskedForm | undefined;
}

/** Reads the link's payments and connections and takes the pure decision (`nextCheckoutStep`) on them. */
async function decide(
  deps: CheckoutDependencies,
  request: CheckoutRequest,
  visit: Visit,
  round: Round,
): Promise<Decision> {
  const { link } = visit;
  const [{ connections, routing }, payments] = await Promise.all([
    deps.psps.directory(link.account, link.mode),
    paymentsToDecideOn(deps, link, request.buyerPayment),
  ]);
  const own = payments.find((payment) => payment.id === request.buyerPayment);
  const client = clientKey(link.id, link.reusable ? own : undefined, request.sourceAddress);
  const atStake = amountAtStake(link, payments, visit.amount, request.buyerPayment);
  const all = connections.map((state) => state.connection);
  const health = new Map(connections.map((state) => [state.connection.id, state.health]));
  const routedLink = { ...link, amount: atStake };
  const signals = await routingSignals(deps, routedLink, routing, health);
  const { connections: routed, decision } = routeDecision(routedLink, routing, all, deps.random, signals);
  const rule = routing && !link.connections?.length ? ruleFor(routedLink, routing) : undefined;
  // Routed on the amount the page shows: the details asked are those its connection's page cannot ask.
  const form = askedForm(link, servingPage(routed, atStake, deps.psps), {
    form: request.form,
    asked: visit.answered?.asked,
  });
  const amount = visit.unanswered && form ? undefined : (visit.amount ?? link.amount ?? undefined);
  const step = nextCheckoutStep({
    link,
    payments,
    routed,
    amount,
    amountProblems: amount ? amountProblems(link, amount, routed, deps.psps) : new Map(),
    now: deps.now(),
    wantsAnother: request.via !== undefined,
    returned: request.returned === true,
    answers: visit.answered?.answers,
    unendable: round.unendable,
    buyerPayment: request.buyerPayment,
    client,
    pspCallsLeft: round.budget.left(),
    recovery: recoveryOf(rule?.then),
    random: deps.random,
  });
  // No connection serves the link: an open session is still shown or ended, nothing new is offered.
  if (routed.length === 0 && step.kind !== 'show' && step.kind !== 'end') throw new PspNotConfiguredError();
  return { visit, step, payments, health, atStake, client, routing: decision, form };
}

/**
 * What routing reads besides the rules: which connections are down now (every strategy puts them last), and for
 * an `optimize` rule its connections' outcomes in the link's segment (read through the container's cache).
 */
async function routingSignals(
  deps: CheckoutDependencies,
  link: RoutedLink,
  routing: Routing | null,
  health: ReadonlyMap<string, ConnectionHealth>,
): Promise<RoutingSignals> {
  const now = deps.now();
  const isDown = (id: string) => {
    const known = health.get(id);
    return known !== undefined && healthStatus(known, now) === 'down';
  };
  const rule = routing && !link.connections?.length ? ruleFor(link, routing) : undefined;
  if (!rule || !('optimize' in rule.then) || !deps.observed) return { isDown };
  const windows = await deps.observed.windows(rule.then.connections);
  const segment = segmentKey(segmentOf(link.amount, link.payment_methods));
  return { observed: (id) => windows.get(id)?.get(segment), isDown };
}

/** Carries out a decision: the page to answer, or undefined when the request decides again (a session ended). */
async function perform(
  deps: CheckoutDependencies,
  request: CheckoutRequest,
  { visit, step, payments, health, atStake, client, routing, form }: Decision,
  round: Round,
): Promise<CheckoutView | undefined> {
  const { link } = visit;
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
        ...(step.problem ? { problem: step.problem } : {}),
        entered: request.amount,
        form: form && { ...form, via: request.via },
      };
    case 'wait':
      return waitingView(link, step);
    case 'end': {
      const ended = await endSession(deps, link, payments, step.session, round.budget);
      if (ended === 'open') round.unendable.add(step.session.payment_id);
      return undefined;
    }
    case 'open': {
      const asked = visit.answered?.asked ?? [];
      const { candidates, missing } = candidatesWithDetails(link, step.candidates, asked, deps.psps);
      if (candidates.length === 0) return askAgain(link, request, asked, missing);
      const opening = {
        link,
        amount: atStake,
        locale: visit.locale,
        client,
        firstAttemptId: firstAttemptFollowed(link, payments, request.buyerPayment),
        routing: { ...routing, recovery: step.recovery === true },
        references: request.references,
        answers: visit.answered?.answers,
        lines: visit.answered?.lines,
      };
      const opened = await openInPlace(deps, opening, step.place, candidates, health, round.budget);
      if (opened.kind === 'decide_again') return undefined;
      return opened.kind === 'opened' ? { ...opened, kind: 'forward' } : { kind: 'unavailable', link };
    }
  }
}

/** The page of a decision to wait: no places left, too many sessions lately, or nothing that can be shown now. */
function waitingView(link: PaymentLink, step: Extract<CheckoutStep, { kind: 'wait' }>): CheckoutView {
  if (step.reason === 'full') return { kind: 'full', link, retryAt: step.until ?? undefined };
  return step.reason === 'throttled' && step.until
    ? { kind: 'throttled', link, retryAt: step.until }
    : { kind: 'unavailable', link, retryAt: step.until ?? undefined };
}

/**
 * The connections that can take the amount need a detail the buyer was not asked (their pages cannot ask it): the
 * form again, asking it, with what the buyer gave kept.
 */
function askAgain(
  link: PaymentLink,
  request: CheckoutRequest,
  asked: BuyerDetail[],
  missing: BuyerDetail[],
): CheckoutView {
  return {
    kind: 'ask',
    link,
    entered: request.amount,
    form: askedForm(link, undefined, { form: request.form, asked }, missing),
  };
}

/**
 * Ends an open session at its PSP before another may be opened, by the rule every caller shares (`endAttempt`,
 * functions/use-cases/session-endings.ts): `ended` (its payment is recorded canceled, or as the PSP says it
 * ended), `paid` (the PSP refused because it was paid: recorded now, with its event, so the link is paid), or
 * `open` (the PSP refused because it may still be paid, as some do once the buyer started paying; or the PSP
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

function strictlyIncreasing(now: () => Date): () => Date {
  let last = 0;
  return () => {
    last = Math.max(now().getTime(), last + 1);
    return new Date(last);
  };
}
