import type { Principal } from '../domain/principal.ts';
import { type RoutingUplift, routingUplift, type UpliftWindow, windowFirstDay } from '../domain/uplift.ts';
import type { ArmCounterStore } from '../ports/outcome-counters.ts';

export interface UpliftDependencies {
  /** Where the arms of `optimize` rules are counted (`ArmCounterStore`). */
  arms: ArmCounterStore;
  now: () => Date;
}

/** `GET /v1/routing/uplift`: what learning earned in the caller's mode, per rule and together. */
export type RoutingUpliftResource = {
  object: 'routing_uplift';
  method: typeof UPLIFT_METHOD;
} & RoutingUplift;

/** The interval's method, named in every answer so that a reader can check it (docs/orchestration.md#uplift). */
export const UPLIFT_METHOD = 'newcombe_wilson_95';

/**
 * The uplift of the caller's `optimize` rules over the window's days (today's included), from the arms' counters;
 * narrowed to one rule (by name) when asked. A rule without any holdout checkout yet has no difference.
 */
export async function routingUpliftOf(
  deps: UpliftDependencies,
  principal: Principal,
  query: { window: UpliftWindow; rule?: string | undefined },
): Promise<RoutingUpliftResource> {
  const now = deps.now();
  const buckets = await deps.arms.read(principal.account, principal.mode, windowFirstDay(now, query.window));
  const asked = query.rule === undefined ? buckets : buckets.filter((bucket) => bucket.rule === query.rule);
  return { object: 'routing_uplift', method: UPLIFT_METHOD, ...routingUplift(asked, query.window, now) };
}
