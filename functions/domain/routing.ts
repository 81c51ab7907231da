import { builtInSandbox, type PspConnection } from './connection.ts';
import { feeEstimate } from './learned-fees.ts';
import type { Amount } from './money.ts';
import { type OutcomeWindows, segmentOf } from './outcomes.ts';
import type { PaymentLink } from './payment-link.ts';
import { methodsFor, type PaymentMethod } from './payment-methods.ts';
import type { RoutingDecision } from './routing-decision.ts';
import { chooseByStrategy, expectedFee, type OptimizeGoal } from './strategies.ts';

/**
 * Routing: which connections serve a link, in which order (docs/orchestration.md#routing). Pure: the document,
 * its validation against the (account, mode)'s connections, and the rule engine.
 */
export interface RoutingCondition {
  currency?: string[] | undefined;
  /** Matches links whose `payment_methods` name one of these (a link that names none matches no such rule). */
  payment_method?: PaymentMethod[] | undefined;
  amount_min?: string | undefined;
  amount_max?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface SplitShare {
  connection: string;
  weight: number;
}

/**
 * What a buyer back after a failed attempt gets (docs/orchestration.md#recovery): `auto`, a session at the next
 * connection at once (once per buyer); `offer`, the "Pay with another payment provider" button; `off`, neither.
 */
export const RECOVERY_MODES = ['auto', 'offer', 'off'] as const;
export type RecoveryMode = (typeof RECOVERY_MODES)[number];

/**
 * The untouched control group of an `optimize` rule (docs/orchestration.md#holdout): `share` of its checkouts,
 * drawn at random per checkout, are routed by `baseline` in its order (the rule's own `connections` when it names
 * none), so that what learning earns can be measured against it (functions/domain/uplift.ts).
 */
export interface Holdout {
  share: number;
  baseline?: string[] | undefined;
}

/** The holdout of an `optimize` rule that names none. */
export const DEFAULT_HOLDOUT_SHARE = 0.05;
/** Above this, the holdout would be the larger arm: learning would serve the fewer checkouts. */
export const MAX_HOLDOUT_SHARE = 0.5;

export type OptimizeTarget = { optimize: OptimizeGoal; connections: string[]; holdout?: Holdout | undefined };

export type RoutingTarget = ({ priority: string[] } | { split: SplitShare[] } | OptimizeTarget) & {
  recovery?: RecoveryMode | undefined;
};

/** An `optimize` rule's holdout with its defaults: 5% of checkouts, on the rule's own order. */
export const holdoutOf = (target: OptimizeTarget): Required<Holdout> => ({
  share: target.holdout?.share ?? DEFAULT_HOLDOUT_SHARE,
  baseline: target.holdout?.baseline ?? target.connections,
});

/** A rule's recovery: its own, else `auto` for `optimize` rules and `offer` (as before) for the others. */
export const recoveryOf = (target: RoutingTarget | undefined): RecoveryMode =>
  target?.recovery ?? (target && 'optimize' in target ? 'auto' : 'offer');

export interface RoutingRule {
  name: string;
  when: RoutingCondition;
  then: RoutingTarget;
}

/** The routing document of an (account, mode), as the merchant sets it with `PUT /v1/routing`. */
export interface Routing {
  rules: RoutingRule[];
  default: string[];
}

/** One problem with a routing document, at a JSON Pointer into it. */
export interface RoutingProblem {
  pointer: string;
  detail: string;
}

/**
 * What is wrong with a (well-formed) routing document given the (account, mode)'s stored connections: ids
 * that name no connection of this account and mode (unknown, removed, or another mode's or tenant's), empty
 * lists, weights that are not positive integers, amount bounds without a currency or in the wrong order.
 */
export function routingProblems(routing: Routing, connections: readonly PspConnection[]): RoutingProblem[] {
  const known = new Set(connections.map((connection) => connection.id));
  const problems: RoutingProblem[] = [];
  const checkIds = (ids: readonly string[], pointer: string, at: (index: number) => string) => {
    if (ids.length === 0) problems.push({ pointer, detail: 'Must name at least one connection.' });
    const seen = new Set<string>();
    ids.forEach((id, index) => {
      if (!known.has(id)) problems.push({ pointer: at(index), detail: `No connection ${id} in this mode.` });
      else if (seen.has(id)) problems.push({ pointer: at(index), detail: `${id} is named twice.` });
      seen.add(id);
    });
  };
  routing.rules.forEach((rule, index) => {
    const base = `/rules/${index}`;
    const { when } = rule;
    if ((when.amount_min !== undefined || when.amount_max !== undefined) && !when.currency?.length) {
      problems.push({
        pointer: `${base}/when`,
        detail: 'Amount bounds apply to the currencies a rule names: add "currency".',
      });
    }
    if (
      when.amount_min !== undefined &&
      when.amount_max !== undefined &&
      compareDecimal(when.amount_min, when.amount_max) > 0
    ) {
      problems.push({ pointer: `${base}/when/amount_max`, detail: 'Must not be below amount_min.' });
    }
    if ('priority' in rule.then) {
      checkIds(rule.then.priority, `${base}/then/priority`, (i) => `${base}/then/priority/${i}`);
    } else if ('optimize' in rule.then) {
      checkIds(rule.then.connections, `${base}/then/connections`, (i) => `${base}/then/connections/${i}`);
      checkHoldout(rule.then, `${base}/then/holdout`, problems, checkIds);
    } else {
      const shares = rule.then.split;
      checkIds(
        shares.map((share) => share.connection),
        `${base}/then/split`,
        (i) => `${base}/then/split/${i}/connection`,
      );
      shares.forEach((share, i) => {
        if (!Number.isSafeInteger(share.weight) || share.weight < 1) {
          problems.push({ pointer: `${base}/then/split/${i}/weight`, detail: 'Must be a positive integer.' });
        }
      });
    }
  });
  checkIds(routing.default, '/default', (index) => `/default/${index}`);
  return problems;
}

/** A holdout's share, in [0, `MAX_HOLDOUT_SHARE`], and its baseline's ids, checked as a priority list's. */
function checkHoldout(
  target: OptimizeTarget,
  pointer: string,
  problems: RoutingProblem[],
  checkIds: (ids: readonly string[], pointer: string, at: (index: number) => string) => void,
): void {
  const { holdout } = target;
  if (!holdout) return;
  if (!(holdout.share >= 0 && holdout.share <= MAX_HOLDOUT_SHARE)) {
    problems.push({ pointer: `${pointer}/share`, detail: `Must be between 0 and ${MAX_HOLDOUT_SHARE}.` });
  }
  if (holdout.baseline) checkIds(holdout.baseline, `${pointer}/baseline`, (i) => `${pointer}/baseline/${i}`);
}

/**
 * What the engine needs of a link: its tenant, money, metadata and its own `connections` override. `amount` is
 * the amount routed on: the link's, or for a buyer-chosen amount the one at stake (`amountAtStake`,
 * functions/domain/checkout/step.ts; docs/orchestration.md#routing).
 */
export type RoutedLink = Pick<PaymentLink, 'account' | 'mode' | 'metadata'> & {
  amount: Amount;
  connections?: string[] | null | undefined;
  payment_methods?: PaymentMethod[] | null | undefined;
};

/** What a learning strategy reads besides the link: outcomes in the link's segment, and health. */
export interface RoutingSignals {
  observed?: ((connectionId: string) => OutcomeWindows | undefined) | undefined;
  /** The connection's windows in its segments other than the link's. */
  otherSegments?: ((connectionId: string) => readonly OutcomeWindows[]) | undefined;
  isDown?: ((connectionId: string) => boolean) | undefined;
}

/**
 * What learning reads of the windows of an `optimize` rule's connections (by connection, then segment key) for a
 * link of segment `segment`: each connection's windows there, and in its other segments.
 */
export function learningSignals(
  windows: ReadonlyMap<string, ReadonlyMap<string, OutcomeWindows>>,
  segment: string,
): Pick<RoutingSignals, 'observed' | 'otherSegments'> {
  return {
    observed: (id) => windows.get(id)?.get(segment),
    otherSegments: (id) => {
      const others: OutcomeWindows[] = [];
      for (const [key, observed] of windows.get(id) ?? []) if (key !== segment) others.push(observed);
      return others;
    },
  };
}

/**
 * The connections that serve `link`, in the order to try them:
 * - the link's own `connections` list when it has one;
 * - else the first rule of `routing` whose `when` matches (its `priority` list, its `split` ordered by a
 *   weighted draw without replacement, or its `optimize` strategy: `chooseByStrategy`), or `routing.default`
 *   when none matches;
 * - with no routing, the enabled connections in the order they were added, and in test mode, when the
 *   account has none, the built-in sandbox.
 * Only enabled connections of the link's own (account, mode) are ever returned, whatever the lists name.
 * `random` returns numbers in [0, 1).
 */
export function routeLink(
  link: RoutedLink,
  routing: Routing | null,
  connections: readonly PspConnection[],
  random: () => number,
  signals: RoutingSignals = {},
): PspConnection[] {
  return routeDecision(link, routing, connections, random, signals).connections;
}

/** `routeLink` with the decision that explains its order. */
export function routeDecision(
  link: RoutedLink,
  routing: Routing | null,
  connections: readonly PspConnection[],
  random: () => number,
  signals: RoutingSignals = {},
): { connections: PspConnection[]; decision: RoutingDecision } {
  const usable = new Map(
    connections
      .filter((c) => c.enabled && c.account === link.account && c.mode === link.mode)
      // A connection that serves none of the link's methods cannot take its payment.
      .filter((c) => methodsFor(link.payment_methods, c.methods)?.length !== 0)
      .map((c) => [c.id, c] as const),
  );
  // Every checkout routes: a plain loop, without the arrays a spread and a flatMap would allocate.
  const pick = (ids: readonly string[]) => {
    const picked: PspConnection[] = [];
    for (const id of ids) {
      const connection = usable.get(id);
      if (connection && !picked.includes(connection)) picked.push(connection);
    }
    return picked;
  };
  const isDown = signals.isDown ?? (() => false);
  // Health first, whatever the strategy: a down connection is never the first choice while another is up.
  const explain = (
    picked: PspConnection[],
    rule: string | null,
    strategy: RoutingDecision['strategy'],
    holdout = false,
  ) => {
    const ordered = [...picked.filter((c) => !isDown(c.id)), ...picked.filter((c) => isDown(c.id))];
    const decision = plainDecision(link, ordered, rule, strategy, signals.observed);
    return { connections: ordered, decision: { ...decision, holdout } };
  };
  if (link.connections?.length) return explain(pick(link.connections), null, 'link');
  if (routing) {
    const rule = ruleFor(link, routing);
    if (!rule) return explain(pick(routing.default), null, 'default');
    const { then } = rule;
    if ('priority' in then) return explain(pick(then.priority), rule.name, 'priority');
    if ('split' in then) return explain(pick(weightedOrder(then.split, random)), rule.name, 'split');
    const baseline = pick(drawnBaseline(then, random));
    // A baseline with no usable connection holds nothing out: the checkout is learning's, as if not drawn.
    if (baseline.length > 0) return explain(baseline, rule.name, then.optimize, true);
    return optimized(link, rule.name, then.optimize, pick(then.connections), random, signals);
  }
  const enabled = [...usable.values()];
  if (enabled.length > 0 || connections.length > 0 || link.mode !== 'test') {
    return explain(enabled, null, 'enabled');
  }
  return explain([builtInSandbox(link.account, link.mode)], null, 'enabled');
}

/**
 * The baseline's ids when this checkout is drawn into the rule's holdout, else none. Drawn only when the rule has
 * a holdout, so that a rule without one (`share: 0`) draws as it did before holdouts existed.
 */
function drawnBaseline(target: OptimizeTarget, random: () => number): readonly string[] {
  const { share, baseline } = holdoutOf(target);
  return share > 0 && random() < share ? baseline : [];
}

/** The first rule whose `when` matches the link; undefined: the default list applies. */
export const ruleFor = (link: RoutedLink, routing: Routing): RoutingRule | undefined =>
  routing.rules.find((candidate) => matches(candidate.when, link));

const onlyMethod = (link: RoutedLink) =>
  link.payment_methods?.length === 1 ? link.payment_methods[0] : undefined;

/**
 * The decision of a fixed order: nothing learned of the candidates but their fees, which the uplift's net of fees
 * reads for the holdout's checkouts as it does for learning's (functions/domain/uplift.ts).
 */
function plainDecision(
  link: RoutedLink,
  picked: readonly PspConnection[],
  rule: string | null,
  strategy: RoutingDecision['strategy'],
  observed: RoutingSignals['observed'],
): RoutingDecision {
  return {
    rule,
    strategy,
    segment: segmentOf(link.amount, link.payment_methods),
    candidates: picked.map((connection) => ({
      connection: connection.id,
      paid_share: null,
      sessions: 0,
      ...feeEstimate(
        expectedFee(connection.fees, link.amount, onlyMethod(link)),
        observed?.(connection.id)?.reported_fees,
        link.amount,
      ),
      eliminated: false,
    })),
    chosen: null,
    exploration: false,
    recovery: false,
    holdout: false,
  };
}

function optimized(
  link: RoutedLink,
  rule: string,
  goal: OptimizeGoal,
  candidates: PspConnection[],
  random: () => number,
  signals: RoutingSignals,
): { connections: PspConnection[]; decision: RoutingDecision } {
  const choice = chooseByStrategy({
    goal,
    candidates,
    observed: signals.observed ?? (() => undefined),
    otherSegments: signals.otherSegments,
    isDown: signals.isDown ?? (() => false),
    amount: link.amount,
    method: onlyMethod(link),
    random,
  });
  return {
    connections: choice.order,
    decision: {
      rule,
      strategy: goal,
      segment: segmentOf(link.amount, link.payment_methods),
      candidates: choice.estimates,
      chosen: null,
      exploration: choice.exploration,
      recovery: false,
      holdout: false,
    },
  };
}

/** Every given field of `when` must match; amount bounds only bind links in a currency the rule names. */
export function matches(
  when: RoutingCondition,
  link: Pick<RoutedLink, 'amount' | 'metadata' | 'payment_methods'>,
): boolean {
  if (when.currency && !when.currency.includes(link.amount.currency)) return false;
  if (when.payment_method && !when.payment_method.some((method) => link.payment_methods?.includes(method))) {
    return false;
  }
  if (when.amount_min !== undefined && compareAmount(link.amount, when.amount_min) < 0) return false;
  if (when.amount_max !== undefined && compareAmount(link.amount, when.amount_max) > 0) return false;
  for (const [key, value] of Object.entries(when.metadata ?? {})) {
    if (link.metadata?.[key] !== value) return false;
  }
  return true;
}

/** The split's connections ordered by repeated weighted draws: the first is picked with probability weight/total. */
export function weightedOrder(shares: readonly SplitShare[], random: () => number): string[] {
  const left = [...shares];
  const order: string[] = [];
  while (left.length > 0) {
    const total = left.reduce((sum, share) => sum + share.weight, 0);
    let point = random() * total;
    let index = left.findIndex((share) => {
      point -= share.weight;
      return point < 0;
    });
    if (index < 0) index = left.length - 1;
    order.push((left[index] as SplitShare).connection);
    left.splice(index, 1);
  }
  return order;
}

const compareAmount = (amount: Amount, bound: string): number => compareDecimal(amount.value, bound);

/** Compares two plain decimal strings exactly (no floating point). */
export function compareDecimal(a: string, b: string): number {
  const [aInt = '0', aFrac = ''] = a.split('.');
  const [bInt = '0', bFrac = ''] = b.split('.');
  const scale = Math.max(aFrac.length, bFrac.length);
  const left = BigInt(aInt + aFrac.padEnd(scale, '0'));
  const right = BigInt(bInt + bFrac.padEnd(scale, '0'));
  return left < right ? -1 : left > right ? 1 : 0;
}
