import { createHash } from 'node:crypto';
import type { Payment } from './payment.ts';

/**
 * New checkout sessions are bounded per window (a bound on what visitors cost, docs/security.md#checkout-sessions),
 * twice: for each client (`clientKey`), counting every session it opened, and for the link, counting sessions
 * that still hold a place (payable, paid, or ended by their PSP; not one we ended unused). A client's budget is
 * below the link's, so one visitor, however it behaves, never locks the link for the others.
 *
 * A reusable link is shared by many buyers: its link-wide budget counts clients, not sessions (each client that
 * opened a session holding a place in the window counts once, however many it opened), so that many addresses
 * each spending their own budget do not lock it; and its clients' window is short, so that buyers behind one
 * address (an office, a carrier's NAT) wait minutes, not an hour, when that address spent its budget.
 */
export const SESSION_WINDOW_MS = 3_600_000;

export const MAX_SESSIONS_PER_WINDOW = 10;
export const MAX_CLIENT_SESSIONS_PER_WINDOW = 5;
/** A reusable link's budget: clients per `SESSION_WINDOW_MS`, each with its sessions per client window. */
export const MAX_REUSABLE_CLIENTS_PER_WINDOW = 100;
export const MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW = 10;
export const REUSABLE_CLIENT_WINDOW_MS = 10 * 60_000;

export interface SessionBudget {
  /** Sessions holding a place per `SESSION_WINDOW_MS` for the link, or clients when `linkCountsClients`. */
  link: number;
  linkCountsClients: boolean;
  /** Sessions per `clientWindowMs` for one client. */
  client: number;
  clientWindowMs: number;
}

export const SINGLE_USE_BUDGET: SessionBudget = {
  link: MAX_SESSIONS_PER_WINDOW,
  linkCountsClients: false,
  client: MAX_CLIENT_SESSIONS_PER_WINDOW,
  clientWindowMs: SESSION_WINDOW_MS,
};
export const REUSABLE_BUDGET: SessionBudget = {
  link: MAX_REUSABLE_CLIENTS_PER_WINDOW,
  linkCountsClients: true,
  client: MAX_REUSABLE_CLIENT_SESSIONS_PER_WINDOW,
  clientWindowMs: REUSABLE_CLIENT_WINDOW_MS,
};

/**
 * Who is asking for a session, as the session budgets know them: the client that opened the buyer's own last
 * attempt (a reusable link's cookie names it), else the request's source address, an IPv6 address by its /64
 * (the block one host or household gets, whose addresses cost it nothing). The address is kept only as a hash
 * salted with the link's id, short enough that it identifies nobody across links.
 */
export function clientKey(
  linkId: string,
  own: Pick<Payment, 'opened_by'> | undefined,
  address: string,
): string {
  if (own?.opened_by) return own.opened_by;
  return createHash('sha256')
    .update(`${linkId}\n${networkOf(address)}`)
    .digest('base64url')
    .slice(0, 16);
}

/** An IPv4 address as it is (also when mapped into IPv6), an IPv6 address as its first 64 bits. */
function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  // API Gateway gives a well-formed address: only IPv6 has colons.
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...front, ...Array(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * Until when the client (`client`) may open no session, by the budgets (`budget`), given the link's payments:
 * its own budget is spent until the oldest session it counts leaves its window; the link's until the oldest
 * session (or, counting clients, the client whose latest session is oldest) leaves the link's window. A client
 * the link counts already is never refused by the link's budget, only by its own. Undefined: not throttled.
 */
export function throttledUntil(
  payments: readonly Payment[],
  budget: SessionBudget,
  client: string,
  now: Date,
): Date | undefined {
  const opened = payments.filter((payment) => payment.session_id !== null);
  const since = (windowMs: number) => (payment: Payment) =>
    Date.parse(payment.created_at) > now.getTime() - windowMs;
  const own = opened.filter(since(budget.clientWindowMs)).filter((payment) => payment.opened_by === client);
  if (own.length >= budget.client) return new Date(oldest(own) + budget.clientWindowMs);
  const holding = opened
    .filter(since(SESSION_WINDOW_MS))
    .filter((payment) => !(payment.ended_unused && payment.status === 'canceled'));
  if (!budget.linkCountsClients) {
    return holding.length >= budget.link ? new Date(oldest(holding) + SESSION_WINDOW_MS) : undefined;
  }
  const latest = new Map<string, number>();
  for (const payment of holding) {
    const key = payment.opened_by ?? payment.id;
    latest.set(key, Math.max(latest.get(key) ?? 0, Date.parse(payment.created_at)));
  }
  if (latest.size < budget.link || latest.has(client)) return undefined;
  return new Date(Math.min(...latest.values()) + SESSION_WINDOW_MS);
}

const oldest = (payments: readonly Payment[]) =>
  Math.min(...payments.map((payment) => Date.parse(payment.created_at)));
