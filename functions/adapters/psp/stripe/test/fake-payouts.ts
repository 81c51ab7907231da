import { randomBytes } from 'node:crypto';
import type { FakeSession } from './fake-answers.ts';

type FakeObject = Record<string, unknown> & { id: string };

/** What the fake Stripe holds that a payout pays out: its sessions (their charges) and its refunds. */
interface FakeStripeBalance {
  sessions: Map<string, FakeSession>;
  refunds: Map<string, FakeObject & { status: string; payment_intent: string }>;
  nowSeconds: () => number;
}

/** The payouts of a fake Stripe, and the balance transactions each pays out. */
export interface FakeStripePayouts {
  payouts: Map<string, FakeObject>;
  /**
   * What Stripe's automatic payout does: every paid charge and succeeded refund not yet paid out, and the foreign
   * charges added since, in one payout (`paid`, arriving the next day). Each charge's fee is 1.5% + 0.25.
   */
  payOut(): FakeObject;
  /** A charge made outside the service (Stripe's dashboard, another integration): no payment of ours has it. */
  foreignCharge(amount: number, currency: string): void;
  /** The answer to `GET /v1/payouts` or `GET /v1/balance_transactions`, or undefined for another path. */
  answer(method: string, url: URL): { status: number; body: unknown } | undefined;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const listOf = (url: string, data: unknown[], hasMore: boolean) => ({
  object: 'list',
  data,
  has_more: hasMore,
  url,
});

/** Stripe's page: `limit` (default 10) after `starting_after`, in the list's order. */
function page<T extends { id: string }>(items: T[], query: URLSearchParams, url: string) {
  const limit = Number(query.get('limit') ?? 10);
  const after = query.get('starting_after');
  const start = after ? items.findIndex((item) => item.id === after) + 1 : 0;
  const data = items.slice(start, start + limit);
  return listOf(url, data, start + limit < items.length);
}

/** Balance transactions and payouts as Stripe's API reference shows them (`balance_transaction`, `payout`). */
export function fakeStripePayouts(balance: FakeStripeBalance): FakeStripePayouts {
  const payouts = new Map<string, FakeObject>();
  const transactions = new Map<string, FakeObject[]>();
  const paidOut = new Set<string>();
  const foreign: FakeObject[] = [];

  const transaction = (type: string, amount: number, fee: number, currency: string, source: unknown) => ({
    id: id('txn'),
    object: 'balance_transaction',
    amount,
    currency,
    fee,
    net: amount - fee,
    type,
    status: 'available',
    created: balance.nowSeconds(),
    source,
  });
  const chargeOf = (session: FakeSession) => {
    const amount = Number(session.amount_total);
    const fee = Math.round(amount * 0.015) + 25;
    const charge = { id: id('ch'), object: 'charge', payment_intent: session.payment_intent, amount };
    return transaction('charge', amount, fee, String(session.currency), charge);
  };

  return {
    payouts,
    foreignCharge(amount, currency) {
      const fee = Math.round(amount * 0.015) + 25;
      const charge = { id: id('ch'), object: 'charge', payment_intent: id('pi'), amount };
      foreign.push(transaction('charge', amount, fee, currency, charge));
    },
    payOut() {
      const lines: FakeObject[] = foreign.splice(0);
      for (const session of balance.sessions.values()) {
        if (session.payment_status !== 'paid' || paidOut.has(session.id)) continue;
        paidOut.add(session.id);
        lines.push(chargeOf(session));
      }
      for (const refund of balance.refunds.values()) {
        if (refund.status !== 'succeeded' || paidOut.has(refund.id)) continue;
        paidOut.add(refund.id);
        lines.push(transaction('refund', -Number(refund.amount), 0, String(refund.currency), refund));
      }
      const created = balance.nowSeconds();
      const amount = lines.reduce((sum, line) => sum + Number(line.net), 0);
      const payout: FakeObject = {
        id: id('po'),
        object: 'payout',
        amount,
        arrival_date: created + 86_400,
        automatic: true,
        created,
        currency: String(lines[0]?.currency ?? 'eur'),
        livemode: false,
        metadata: {},
        method: 'standard',
        status: 'paid',
        type: 'bank_account',
      };
      payouts.set(payout.id, payout);
      transactions.set(payout.id, [
        transaction('payout', -amount, 0, String(payout.currency), payout.id),
        ...lines,
      ]);
      return payout;
    },
    answer(method, url) {
      if (method !== 'GET') return undefined;
      const query = url.searchParams;
      if (url.pathname === '/v1/payouts') {
        const since = Number(query.get('created[gte]') ?? 0);
        const newestFirst = [...payouts.values()]
          .filter((payout) => Number(payout.created) >= since)
          .sort((a, b) => Number(b.created) - Number(a.created));
        return { status: 200, body: page(newestFirst, query, '/v1/payouts') };
      }
      if (url.pathname === '/v1/balance_transactions') {
        const expanded = [...query.entries()].some(
          ([name, value]) => name.startsWith('expand') && value === 'data.source',
        );
        const lines = (transactions.get(query.get('payout') ?? '') ?? []).map((line) =>
          expanded || typeof line.source !== 'object'
            ? line
            : { ...line, source: (line.source as FakeObject).id },
        );
        return { status: 200, body: page(lines, query, '/v1/balance_transactions') };
      }
      return undefined;
    },
  };
}
