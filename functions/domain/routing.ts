import { builtInSandbox, type PspConnection } from './connection.ts';
import type { Amount } from './money.ts';
import type { PaymentLink } from './payment-link.ts';
import { methodsFor, type PaymentMethod } from './payment-methods.ts';

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

export type RoutingTarget = { priority: string[] } | { split: SplitShare[] };

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

/**
 * What the engine needs of a link: its tenant, money, metadata and its own `connections` override. `amount` is
 * the amount routed on: the link's, or for a buyer-chosen amount the one at stake (`amountAtStake`,
 * functions/domain/checkout.ts; docs/orchestration.md#routing).
 */
export type RoutedLink = Pick<PaymentLink, 'account' | 'mode' | 'metadata'> & {
  amount: Amount;
  connections?: string[] | null | undefined;
  payment_methods?: PaymentMethod[] | null | undefined;
};

/**
 * The connections that serve `link`, in the order to try them:
 * - the link's own `connections` list when it has one;
 * - else the first rule of `routing` whose `when` matches (its `priority` list, or its `split` ordered by a
 *   weighted draw without replacement), or `routing.default` when none matches;
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
): PspConnection[] {
  const usable = new Map(
    connections
      .filter((c) => c.enabled && c.account === link.account && c.mode === link.mode)
      // A connection that serves none of the link's methods cannot take its payment.
      .filter((c) => methodsFor(link.payment_methods, c.methods)?.length !== 0)
      .map((c) => [c.id, c] as const),
  );
  const pick = (ids: readonly string[]) =>
    [...new Set(ids)].flatMap((id) => {
      const connection = usable.get(id);
      return connection ? [connection] : [];
    });
  if (link.connections?.length) return pick(link.connections);
  if (routing) {
    const rule = routing.rules.find((candidate) => matches(candidate.when, link));
    if (!rule) return pick(routing.default);
    return pick('priority' in rule.then ? rule.then.priority : weightedOrder(rule.then.split, random));
  }
  const enabled = [...usable.values()];
  if (enabled.length > 0 || connections.length > 0 || link.mode !== 'test') return enabled;
  return [builtInSandbox(link.account, link.mode)];
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
