import type { LineItem } from '../amount.ts';
import type { BuyerDetail } from '../buyer.ts';
import type { BuyerReferences } from '../buyer-references.ts';
import type { PspConnection } from '../connection.ts';
import { type ConnectionHealth, healthStatus } from '../connection-health.ts';
import type { PlaceToTake } from '../link-places.ts';
import type { Amount } from '../money.ts';
import { type OutcomeWindows, segmentKey, segmentOf } from '../outcomes.ts';
import { firstAttemptFollowed, type Payment } from '../payment.ts';
import type { PaymentLink, PspSession } from '../payment-link.ts';
import {
  learningSignals,
  type RoutedLink,
  type Routing,
  type RoutingSignals,
  recoveryOf,
  routeDecision,
  ruleFor,
} from '../routing.ts';
import type { RoutingDecision } from '../routing-decision.ts';
import { clientKey } from '../session-budgets.ts';
import type { CheckoutAnswers } from './answers.ts';
import type { FormTables } from './form-tables.ts';
import { type MandateHolders, type PlannedMandate, routedFor, sessionTerms } from './mandates.ts';
import {
  type AskedForm,
  amountProblems,
  askedForm,
  candidatesWithDetails,
  linkAsAsked,
  type RulesOfProviders,
  readPosted,
  servingPage,
} from './questions.ts';
import { amountAtStake, type CheckoutStep, nextCheckoutStep } from './step.ts';
import type { CheckoutView } from './views.ts';
import type { CheckoutRequest, Visit } from './visit.ts';

/**
 * The checkout's plan for one round (docs/orchestration.md#sessions, #failover): from what the round read, the
 * whole of what it does, so that the use case (functions/use-cases/checkout.ts) only reads, plans and acts. The
 * page to answer; or the open session to send the buyer to, or to end first; or the connections to try for a new
 * session, in their order, with the amount, the answers, the mandate and the recovery it carries. The step itself
 * is `nextCheckoutStep`'s (step.ts); routing is `routeDecision`'s (functions/domain/routing.ts), kept to the
 * connections that can hold a mandate when the link's payment opens one (mandates.ts).
 */

/** What a round read, beside its visit (`checkoutVisit`): the facts its plan is taken on. */
export interface RoundFacts {
  visit: Visit;
  request: CheckoutRequest;
  /** The link's payments, newest first (`paymentsToDecideOn`). */
  payments: readonly Payment[];
  /** The connections of the link's account and mode, oldest first, with their health. */
  connections: readonly { connection: PspConnection; health: ConnectionHealth }[];
  routing: Routing | null;
  /**
   * For an `optimize` rule, its connections' observed outcomes by segment key, as read for `outcomesToRead`;
   * undefined when nothing was read.
   */
  observed?: ReadonlyMap<string, ReadonlyMap<string, OutcomeWindows>> | undefined;
  /** Payments whose sessions this request could not end (the PSP refused, or could not be asked). */
  unendable: ReadonlySet<string>;
  /** PSP calls this request may still make. */
  pspCallsLeft: number;
  now: Date;
  /** Uniform in [0, 1): draws of weighted splits, of learning strategies, and of a free place. */
  random: () => number;
  /** What each provider's PSP can take and ask (its descriptor's rules), and whether it holds mandates. */
  psps: RulesOfProviders & MandateHolders;
  /** The form tables, loaded when the posted form may answer a phone number or an address (`readingNeedsTables`). */
  tables?: FormTables | undefined;
}

/** What a new session is for, as the plan settles it: `Opening` (functions/use-cases/session-openings.ts). */
export interface PlannedOpening {
  link: PaymentLink;
  amount: Amount;
  locale: string;
  /** Who asks (`clientKey`): the key its session budget is counted under, recorded as `opened_by`. */
  client: string;
  /** On a reusable link, the first attempt of the buyer cookie's chain this one follows (`firstAttemptOf`). */
  firstAttemptId?: string | undefined;
  /** Why these candidates, in this order: recorded on the payment with the connection that opened. */
  routing?: RoutingDecision | undefined;
  /** The buyer's references from the link's address: on the payment, and given to the PSP. */
  references?: BuyerReferences | undefined;
  /** What the buyer answered on our page (docs/checkout.md#buyer-details): recorded on the payment. */
  answers?: CheckoutAnswers | undefined;
  /** The link's lines as the buyer picked their quantities (docs/checkout.md#quantities). */
  lines?: readonly LineItem[] | undefined;
  /** The mandate the session opens, on a subscription link or an update link (./mandates.ts). */
  mandate?: PlannedMandate | undefined;
}

/** What one round of the checkout does. */
export type CheckoutAction =
  /** Answer this page: nothing more is read or called. */
  | { kind: 'page'; view: CheckoutView }
  /** Send the buyer to this open session (its page's origin is read from its connection). */
  | { kind: 'forward'; session: PspSession }
  /** End this open session at its PSP (`recorded`: its payment, when there is one), then plan again. */
  | { kind: 'end'; session: PspSession; recorded: Payment | undefined }
  /**
   * Open a session for `opening`: try `candidates` in this order (failover, functions/domain/checkout/failover.ts),
   * in the link's place `place` when it has places.
   */
  | {
      kind: 'open';
      opening: PlannedOpening;
      candidates: PspConnection[];
      place?: PlaceToTake | undefined;
      health: ReadonlyMap<string, ConnectionHealth>;
    }
  /** No connection serves the link and nothing is open to show or end: the merchant has not finished setup. */
  | { kind: 'not_configured' };

export interface CheckoutPlan {
  action: CheckoutAction;
  /** Routed connections that cannot take the amount (`amountProblems`), by id: not asked, and why. */
  skipped: ReadonlyMap<string, string>;
}

/**
 * The connections an `optimize` rule would learn from in this round, whose observed outcomes the round reads
 * before it plans; undefined when the link is not routed by such a rule.
 */
export function outcomesToRead(
  visit: Visit,
  payments: readonly Payment[],
  routing: Routing | null,
  buyerPayment: string | undefined,
): string[] | undefined {
  const rule = ruleOf(routedLinkOf(visit, payments, buyerPayment), routing);
  return rule && 'optimize' in rule.then ? rule.then.connections : undefined;
}

/** The link routed on the amount at stake in this round (`amountAtStake`). */
const routedLinkOf = (visit: Visit, payments: readonly Payment[], buyerPayment: string | undefined) => ({
  ...visit.link,
  amount: amountAtStake(visit.link, payments, visit.amount, buyerPayment),
});

/** The routing rule that routes `link`: none when the link names its own connections. */
const ruleOf = (link: RoutedLink, routing: Routing | null) =>
  routing && !link.connections?.length ? ruleFor(link, routing) : undefined;

/**
 * What routing reads besides the rules: which connections are down now (every strategy puts them last), and for
 * an `optimize` rule its connections' outcomes in the link's segment.
 */
function signalsOf(facts: RoundFacts, link: RoutedLink, health: ReadonlyMap<string, ConnectionHealth>) {
  const isDown = (id: string) => {
    const known = health.get(id);
    return known !== undefined && healthStatus(known, facts.now) === 'down';
  };
  const { observed } = facts;
  if (!observed) return { isDown } satisfies RoutingSignals;
  const segment = segmentKey(segmentOf(link.amount, link.payment_methods));
  return { ...learningSignals(observed, segment), isDown } satisfies RoutingSignals;
}

/** The plan of one round of the checkout (see above). */
export function planCheckout(facts: RoundFacts): CheckoutPlan {
  const { request, payments } = facts;
  const { link } = facts.visit;
  const own = payments.find((payment) => payment.id === request.buyerPayment);
  const client = clientKey(link.id, link.reusable ? own : undefined, request.sourceAddress);
  const routedLink = routedLinkOf(facts.visit, payments, request.buyerPayment);
  const atStake = routedLink.amount;
  const health = new Map(facts.connections.map((state) => [state.connection.id, state.health]));
  const all = facts.connections.map((state) => state.connection);
  const signals = signalsOf(facts, routedLink, health);
  const routed = routedFor(
    link,
    routeDecision(routedLink, facts.routing, all, facts.random, signals),
    (provider, withoutCharge) => facts.psps.holdsMandates(provider, withoutCharge),
  );
  const rule = ruleOf(routedLink, facts.routing);
  const asked = askedOfRouted(facts, routed.connections);
  if ('view' in asked) return { action: { kind: 'page', view: asked.view }, skipped: new Map() };
  const { visit, asking } = asked;
  // Routed on the amount the page shows: the details asked are those its connection's page cannot ask.
  const form = askedForm(asking, servingPage(routed.connections, atStake, facts.psps), {
    form: request.form,
    asked: visit.answered?.asked,
  });
  const amount = visit.unanswered && form ? undefined : (visit.amount ?? link.amount ?? undefined);
  const skipped = amount ? amountProblems(amount, routed.connections, facts.psps) : new Map<string, string>();
  const step = nextCheckoutStep({
    link,
    payments,
    routed: routed.connections,
    amount,
    amountProblems: skipped,
    now: facts.now,
    wantsAnother: request.via !== undefined,
    returned: request.returned === true,
    answers: visit.answered?.answers,
    unendable: facts.unendable,
    buyerPayment: request.buyerPayment,
    client,
    pspCallsLeft: facts.pspCallsLeft,
    recovery: recoveryOf(rule?.then),
    random: facts.random,
  });
  // No connection serves the link: an open session is still shown or ended, nothing new is offered.
  if (routed.connections.length === 0 && step.kind !== 'show' && step.kind !== 'end') {
    return { action: { kind: 'not_configured' }, skipped };
  }
  const decided = { visit, asking, request, payments, atStake, form, health, psps: facts.psps };
  const opening = { client, routing: routed.decision };
  return { action: actionOf(step, decided, opening), skipped };
}

/**
 * The link as the page asks it of a buyer whom `routed` may serve (`linkAsAsked`), with the visit read as it asks:
 * a detail a routed PSP needs for every session is read (and refused when missing, the form again) although the
 * link's own `collect` does not ask it (docs/checkout.md#details-a-psp-needs).
 */
function askedOfRouted(
  facts: RoundFacts,
  routed: readonly PspConnection[],
): { visit: Visit; asking: PaymentLink } | { view: CheckoutView } {
  const { visit, request } = facts;
  const asking = linkAsAsked(visit.link, routed, facts.psps);
  if (asking === visit.link) return { visit, asking };
  const posted = readPosted(asking, visit.due, request.form, facts.tables);
  if ('refused' in posted) {
    return { view: { kind: 'ask', link: asking, ...posted.refused, entered: request.amount } };
  }
  return { visit: { ...visit, ...posted }, asking };
}

/** What the round read and worked out, that the action of its step carries. */
interface Decided {
  visit: Visit;
  /** The link as the page asks it of this buyer (`linkAsAsked`): what its form shows and reads. */
  asking: PaymentLink;
  request: CheckoutRequest;
  payments: readonly Payment[];
  atStake: Amount;
  /** The form the page shows when it asks (`askedForm`), for the amount shown. */
  form: AskedForm | undefined;
  health: ReadonlyMap<string, ConnectionHealth>;
  psps: RulesOfProviders;
}

/** The action of the step: a page, or the session to show, to end, or to open. */
function actionOf(
  step: CheckoutStep,
  decided: Decided,
  opening: { client: string; routing: RoutingDecision },
): CheckoutAction {
  const { visit, asking, request, payments, atStake, form } = decided;
  const { link } = visit;
  switch (step.kind) {
    case 'show':
      return { kind: 'forward', session: step.session };
    case 'choose':
      return { kind: 'page', view: { kind: 'choose', link, another: step.another, amount: atStake } };
    case 'ask': {
      const view: CheckoutView = {
        kind: 'ask',
        link: asking,
        ...(step.problem ? { problem: step.problem } : {}),
        entered: request.amount,
        form: form && { ...form, via: request.via },
      };
      return { kind: 'page', view };
    }
    case 'wait':
      return { kind: 'page', view: waitingView(link, step) };
    case 'end': {
      const recorded = payments.find((payment) => payment.id === step.session.payment_id);
      return { kind: 'end', session: step.session, recorded };
    }
    case 'open':
      return openAction(step, decided, opening);
  }
}

/**
 * Open at the step's candidates whose pages get every required detail from what the buyer was asked; when none
 * is left, the form again, asking what the first of them needs.
 */
function openAction(
  step: Extract<CheckoutStep, { kind: 'open' }>,
  { visit, asking, request, payments, atStake, health, psps }: Decided,
  { client, routing }: { client: string; routing: RoutingDecision },
): CheckoutAction {
  const { link } = visit;
  const asked = visit.answered?.asked ?? [];
  const { candidates, missing } = candidatesWithDetails(asking, step.candidates, asked, psps);
  if (candidates.length === 0) return { kind: 'page', view: askAgain(asking, request, asked, missing) };
  const opening: PlannedOpening = {
    link,
    ...sessionTerms(link, atStake),
    locale: visit.locale,
    client,
    firstAttemptId: firstAttemptFollowed(link, payments, request.buyerPayment),
    routing: {
      ...routing,
      recovery: step.recovers !== undefined,
      ...(step.recovers ? { recovers: step.recovers } : {}),
    },
    references: request.references,
    answers: visit.answered?.answers,
    lines: visit.answered?.lines,
  };
  return { kind: 'open', opening, candidates, place: step.place, health };
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
