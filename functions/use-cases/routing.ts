import { BUILT_IN_SANDBOX_ID, type FeeLine, type Provider } from '../domain/connection.ts';
import { type HealthStatus, healthStatus } from '../domain/connection-health.ts';
import { NotFoundError, ValidationError } from '../domain/errors.ts';
import { MIN_REPORTED_FEES } from '../domain/learned-fees.ts';
import {
  addCounts,
  NO_OUTCOMES,
  type OutcomeCounts,
  type OutcomeWindows,
  paidShare,
  parseSegmentKey,
  type ReportedFees,
  type Segment,
} from '../domain/outcomes.ts';
import { PAYMENT_METHODS, type PaymentMethod } from '../domain/payment-methods.ts';
import type { Principal } from '../domain/principal.ts';
import { type Routing, routingProblems } from '../domain/routing.ts';
import type { PspConnections } from './psp-connections.ts';

export interface RoutingDependencies {
  psps: PspConnections;
  now: () => Date;
  /** Observed outcomes by connection and segment key (`ObservedOutcomes`); absent: every window empty. */
  observed?: {
    windows(ids: readonly string[]): Promise<ReadonlyMap<string, ReadonlyMap<string, OutcomeWindows>>>;
  };
}

/** One connection as the merchant sees it (`GET /v1/psp-connections`): never its credentials. */
export interface ConnectionResource {
  id: string;
  object: 'psp_connection';
  provider: Provider;
  name: string;
  enabled: boolean;
  health: HealthStatus;
  /** The payment methods it serves (every method unless `--methods` narrowed them). */
  methods: PaymentMethod[];
  /** Its fee lines (`npm run psp -- fees`). */
  fees: FeeLine[];
  /** What its sessions became, all segments together. */
  performance: PerformanceWindows;
}

/** Counts over a window with their paid share, as the API shows them. */
export type CountsResource = OutcomeCounts & { paid_share: number | null };
export interface PerformanceWindows {
  last_hour: CountsResource;
  last_24h: CountsResource;
}

const countsResource = (counts: OutcomeCounts): CountsResource => ({
  ...counts,
  paid_share: paidShare(counts),
});

/** The windows summed over segments. */
function summary(segments: Iterable<OutcomeWindows>): PerformanceWindows {
  let hour = NO_OUTCOMES;
  let day = NO_OUTCOMES;
  for (const windows of segments) {
    hour = addCounts(hour, windows.last_hour);
    day = addCounts(day, windows.last_24h);
  }
  return { last_hour: countsResource(hour), last_24h: countsResource(day) };
}

/** The fees a connection's PSP reported in one segment over the last 24 hours, as routing learns them. */
export interface ReportedFeesResource {
  count: number;
  /** Their share of the amounts they were on; null with none. */
  fee_share: number | null;
  /** At least `MIN_REPORTED_FEES` of them: cost and value routing price the segment with them. */
  used: boolean;
}

const reportedFeesResource = (fees: ReportedFees | undefined): ReportedFeesResource => ({
  count: fees?.count ?? 0,
  fee_share: fees?.amount_minor ? Math.round((fees.fee_minor / fees.amount_minor) * 1e6) / 1e6 : null,
  used: (fees?.count ?? 0) >= MIN_REPORTED_FEES,
});

/** `GET /v1/psp-connections/{id}/performance`: one connection's windows by segment. */
export interface ConnectionPerformance {
  object: 'connection_performance';
  connection_id: string;
  segments: (PerformanceWindows & { segment: Segment; reported_fees: ReportedFeesResource })[];
}

/**
 * The windows of one of the caller's connections by segment, narrowed to a currency or payment method when
 * asked; 404 for a connection that is not the caller's in its mode.
 */
export async function connectionPerformance(
  deps: RoutingDependencies,
  principal: Principal,
  id: string,
  filter: { currency?: string | undefined; payment_method?: string | undefined },
): Promise<ConnectionPerformance> {
  const { connections } = await deps.psps.directory(principal.account, principal.mode);
  const known = id === BUILT_IN_SANDBOX_ID || connections.some(({ connection }) => connection.id === id);
  if (!known) throw new NotFoundError(`No connection ${id} in this mode.`);
  const windows = (await deps.observed?.windows([id]))?.get(id) ?? new Map<string, OutcomeWindows>();
  const segments = [...windows.entries()]
    .map(([key, counts]) => ({
      segment: parseSegmentKey(key),
      ...summary([counts]),
      reported_fees: reportedFeesResource(counts.reported_fees),
    }))
    .filter(
      ({ segment }) =>
        (filter.currency === undefined || segment.currency === filter.currency) &&
        (filter.payment_method === undefined || segment.payment_method === filter.payment_method),
    )
    .sort((a, b) => b.last_24h.opened - a.last_24h.opened);
  return { object: 'connection_performance', connection_id: id, segments };
}

/**
 * The caller's connections in their mode, in the order they were added, with their shared health; in test mode
 * with none of its own, the built-in sandbox that serves it.
 */
export async function listConnections(
  deps: RoutingDependencies,
  principal: Principal,
): Promise<ConnectionResource[]> {
  const { connections } = await deps.psps.directory(principal.account, principal.mode);
  const now = deps.now();
  const ids =
    connections.length === 0 ? [BUILT_IN_SANDBOX_ID] : connections.map(({ connection }) => connection.id);
  const observed = (await deps.observed?.windows(ids)) ?? new Map();
  const performanceOf = (id: string) => summary(observed.get(id)?.values() ?? []);
  if (connections.length === 0 && principal.mode === 'test') {
    return [
      {
        id: BUILT_IN_SANDBOX_ID,
        object: 'psp_connection',
        provider: 'sandbox',
        name: 'Built-in sandbox',
        enabled: true,
        health: 'healthy',
        methods: [...PAYMENT_METHODS],
        fees: [],
        performance: performanceOf(BUILT_IN_SANDBOX_ID),
      },
    ];
  }
  return connections.map(({ connection, health }) => ({
    id: connection.id,
    object: 'psp_connection',
    provider: connection.provider,
    name: connection.name,
    enabled: connection.enabled,
    health: healthStatus(health, now),
    methods: connection.methods ?? [...PAYMENT_METHODS],
    fees: connection.fees ?? [],
    performance: performanceOf(connection.id),
  }));
}

/** The routing in force: the stored document, or (none stored) the enabled connections in the order added. */
export async function getRouting(deps: RoutingDependencies, principal: Principal): Promise<Routing> {
  const { connections, routing } = await deps.psps.directory(principal.account, principal.mode);
  return (
    routing ?? {
      rules: [],
      default: connections
        .filter(({ connection }) => connection.enabled)
        .map(({ connection }) => connection.id),
    }
  );
}

/** Replaces the routing; 422 with pointers when it names what is not a connection of this account and mode. */
export async function putRouting(
  deps: RoutingDependencies,
  principal: Principal,
  routing: Routing,
): Promise<Routing> {
  const { connections } = await deps.psps.directory(principal.account, principal.mode);
  const problems = routingProblems(
    routing,
    connections.map(({ connection }) => connection),
  );
  if (problems.length > 0) throw new ValidationError(problems);
  await deps.psps.putRouting(principal.account, principal.mode, routing);
  return routing;
}
