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

export type OverviewDependencies = BooksDependencies & RoutingDependencies;

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
}

const PAGE = 100;

/**
 * The console's overview from the reads the API has: the books' payments of the window, newest first and at most
 * `OVERVIEW_MAX_PAYMENTS` of them, counted per day; and each connection's observed outcomes of the last 24 hours
 * (`GET /v1/psp-connections`'s performance).
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
  const connections = await listConnections(deps, principal);
  return {
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
