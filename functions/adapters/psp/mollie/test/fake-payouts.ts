import { randomBytes } from 'node:crypto';

type FakeObject = Record<string, unknown> & { id: string };
type Amount = { value: string; currency: string };

/** What the fake Mollie holds that a settlement pays out: its payments and refunds. */
interface FakeMollieBalance {
  payments: Map<string, FakeObject & { mode: string; status: string; amount: Amount }>;
  refunds: Map<string, FakeObject & { paymentId: string; status: string }>;
  endpoint: () => string;
}

/** The settlements of a fake Mollie (its organization's, read with an access token). */
export interface FakeMollieSettlements {
  settlements: Map<string, FakeObject>;
  /**
   * What Mollie does when it settles: every paid live payment and refunded refund not settled yet, and the foreign
   * payments added since, in one settlement (`paidout` today). Each payment's cost is 1.8% + 0.25.
   */
  settle(): FakeObject;
  /** A payment of the organization that did not come through the service (another website profile of it). */
  foreignPayment(value: string, currency: string): void;
  /** The answer to the settlements endpoints, or undefined for another path. */
  answer(method: string, url: URL): { status: number; body: unknown } | undefined;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const link = (href: string, type = 'application/hal+json') => ({ href, type });
const cents = (value: string) => Math.round(Number(value) * 100);
const decimal = (minor: number) => (minor / 100).toFixed(2);

/** Settlements, their payments and refunds as mollie/openapi describes them (`entity-settlement`, `list-settlement-*`). */
export function fakeMollieSettlements(balance: FakeMollieBalance): FakeMollieSettlements {
  const settlements = new Map<string, FakeObject>();
  const contents = new Map<string, { payments: FakeObject[]; refunds: FakeObject[] }>();
  const settled = new Set<string>();
  const foreign: FakeObject[] = [];

  const settledPayment = (payment: FakeObject & { amount: Amount }, settlementId: string) => {
    const cost = Math.round(cents(payment.amount.value) * 0.018) + 25;
    const net = { value: decimal(cents(payment.amount.value) - cost), currency: payment.amount.currency };
    return { ...payment, settlementId, settlementAmount: net };
  };

  /** A page of `items` from the `from` id (Mollie's cursor), with its HAL links. */
  const page = (url: URL, name: string, items: FakeObject[]) => {
    const limit = Number(url.searchParams.get('limit') ?? 50);
    const from = url.searchParams.get('from');
    const start = from
      ? Math.max(
          0,
          items.findIndex((item) => item.id === from),
        )
      : 0;
    const data = items.slice(start, start + limit);
    const next = items[start + limit];
    const here = `${balance.endpoint()}${url.pathname.replace(/^\/v2\//, '')}`;
    return {
      count: data.length,
      _embedded: { [name]: data },
      _links: {
        self: link(`${here}?limit=${limit}`),
        previous: null,
        next: next ? link(`${here}?from=${next.id}&limit=${limit}`) : null,
        documentation: link('https://docs.mollie.com/reference/list-settlements', 'text/html'),
      },
    };
  };

  return {
    settlements,
    foreignPayment(value, currency) {
      foreign.push({
        resource: 'payment',
        id: id('tr'),
        mode: 'live',
        createdAt: new Date().toISOString(),
        amount: { value, currency },
        description: 'Sold in the shop',
        status: 'paid',
        profileId: 'pfl_OtherProfile',
        sequenceType: 'oneoff',
        metadata: null,
        _links: {
          self: link(`${balance.endpoint()}payments/foreign`),
          dashboard: link('https://www.mollie.com/dashboard/org_12345678/payments/foreign', 'text/html'),
          documentation: link('https://docs.mollie.com/reference/get-payment', 'text/html'),
        },
      });
    },
    settle() {
      const settlementId = id('stl');
      const payments = foreign
        .splice(0)
        .map((payment) => settledPayment(payment as FakeObject & { amount: Amount }, settlementId));
      for (const payment of balance.payments.values()) {
        if (payment.mode !== 'live' || payment.status !== 'paid' || settled.has(payment.id)) continue;
        settled.add(payment.id);
        payments.push(settledPayment(payment, settlementId));
      }
      const refunds: FakeObject[] = [];
      for (const refund of balance.refunds.values()) {
        if (refund.status !== 'refunded' || settled.has(refund.id)) continue;
        settled.add(refund.id);
        const amount = refund.amount as Amount;
        refunds.push({
          ...refund,
          mode: 'live',
          settlementId,
          settlementAmount: { value: `-${amount.value}`, currency: amount.currency },
        });
      }
      const total = [...payments, ...refunds].reduce(
        (sum, item) => sum + cents((item.settlementAmount as Amount).value),
        0,
      );
      const now = new Date().toISOString();
      const here = `${balance.endpoint()}settlements/${settlementId}`;
      const settlement: FakeObject = {
        resource: 'settlement',
        id: settlementId,
        reference: `${Date.now()}.2611.01`,
        createdAt: now,
        settledAt: now,
        status: 'paidout',
        amount: { value: decimal(total), currency: 'EUR' },
        balanceId: 'bal_gVMhHKqSSRYJyPsuoPNFH',
        periods: {},
        _links: {
          self: link(here),
          payments: link(`${here}/payments`),
          refunds: link(`${here}/refunds`),
          documentation: link('https://docs.mollie.com/reference/get-settlement', 'text/html'),
        },
      };
      settlements.set(settlementId, settlement);
      contents.set(settlementId, { payments, refunds });
      return settlement;
    },
    answer(method, url) {
      if (method !== 'GET') return undefined;
      if (url.pathname === '/v2/settlements') {
        const newestFirst = [...settlements.values()].reverse();
        return { status: 200, body: page(url, 'settlements', newestFirst) };
      }
      const match = /^\/v2\/settlements\/(stl_[A-Za-z0-9]+)\/(payments|refunds)$/.exec(url.pathname);
      if (!match) return undefined;
      const [, settlementId, what] = match as unknown as [string, string, 'payments' | 'refunds'];
      const held = contents.get(settlementId);
      if (!held) return undefined;
      return { status: 200, body: page(url, what, held[what]) };
    },
  };
}
