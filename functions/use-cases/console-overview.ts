import {
  type DayFigures,
  dailyFigures,
  OVERVIEW_MAX_PAYMENTS,
  type OverviewPayment,
  type OverviewWindow,
  windowStart,
} from '../domain/console-overview.ts';
import type { Principal } from '../domain/principal.ts';
import { type BooksDependencies, listBookPayments } from './books.ts';
import { listConnections, type RoutingDependencies } from './routing.ts';
import { type RoutingUpliftResource, routingUpliftOf, type UpliftDependencies } from './routing-uplift.ts';

export type OverviewDependencies = BooksDependencies & RoutingDependencies & UpliftDependencies;

export interface ConnectionShare {
  id: string;
  name: string;
  /** Sessions opened on the connection in the last 24 hours, and the share of them paid (null: none opened). */
  opened: number;
  paidShare: number | null;
}

export interface Overview {
  days: DayFigures[];
  /** True when the window held more than `OVERVIEW_MAX_PAYMENTS` payments: its oldest days are undercounted. */
  truncated: boolean;
  connections: ConnectionShare[];
  /** What routing that learns earned: over 30 days in the 30-day window, else over 7 (`GET /v1/routing/uplift`). */
  uplift: RoutingUpliftResource;
}

const PAGE = 100;

/**
 * The console's overview from the reads the API has: the books' payments of the window, newest first and at most
 * `OVERVIEW_MAX_PAYMENTS` of them, counted per day; and each connection's observed outcomes of the last 24 hours
 * (`GET /v1/psp-connections`'s performance); the uplift of its `optimize` rules.
 */
export async function consoleOverview(
  deps: OverviewDependencies,
  principal: Principal,
  days: OverviewWindow,
): Promise<Overview> {
  const now = deps.now();
  const createdGte = windowStart(now, days);
  const payments: OverviewPayment[] = [];
  let after: string | undefined;
  do {
    const page = await listBookPayments(deps, principal, { limit: PAGE, createdGte, after });
    payments.push(...page.entries);
    after = page.next;
  } while (after && payments.length < OVERVIEW_MAX_PAYMENTS);
  const [connections, uplift] = await Promise.all([
    listConnections(deps, principal),
    routingUpliftOf(deps, principal, { window: days === 30 ? '30d' : '7d' }),
  ]);
  return {
    uplift,
    days: dailyFigures(payments, now, days),
    truncated: after !== undefined,
    connections: connections.map((connection) => ({
      id: connection.id,
      name: connection.name,
      opened: connection.performance.last_24h.opened,
      paidShare: connection.performance.last_24h.paid_share,
    })),
  };
}
