import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PspMerchant, startPspMerchant } from '../../../../../test/support/psp-stack.ts';
import { sweepSettlements } from '../../../../../test/support/sweepers.ts';
import { PAYOUTS_PER_READ } from '../../../../use-cases/settlements.ts';
import { STRIPE_FAKE } from './fake.ts';
import { paidThroughStripe, refundedThroughStripe } from './paid.ts';

/**
 * A month of payments through Stripe's fake, some refunded, paid out by the fake's automatic payout: the settlement
 * sweeper reads the payout and its balance transactions through the official SDK (held to Stripe's OpenAPI
 * document), matches every payment and refund it contains, lists what it cannot match, records Stripe's fee on each
 * payment, and a second sweep changes nothing (docs/api.md#settlements).
 */
const FAKES = { stripe: STRIPE_FAKE };
let merchant: PspMerchant<typeof FAKES>;

beforeAll(async () => {
  merchant = await startPspMerchant(FAKES, 'payoutshop', 'stripe');
});
afterAll(async () => {
  await merchant?.stop();
});

const api = (path: string, headers: Record<string, string> = {}) =>
  merchant.psps.stack.request('GET', path, { key: merchant.key.api_key, headers });

const paid = (value: string) => paidThroughStripe(merchant, value);
const refunded = (linkId: string, value: string) => refundedThroughStripe(merchant, linkId, value);

describe("Stripe's payouts matched to the books", () => {
  it('matches every payment and refund a payout contains, lists the rest unmatched, and records the fees', async () => {
    const payments = [];
    for (const value of ['10.00', '24.50', '99.99', '5.00', '42.00', '310.00', '18.20', '60.00']) {
      payments.push(await paid(value));
    }
    const refunds = [
      await refunded(payments[1]?.link.id as string, '24.50'),
      await refunded(payments[5]?.link.id as string, '10.00'),
    ];
    merchant.psps.stripe.payouts.foreignCharge(1500, 'eur');
    const payout = merchant.psps.stripe.payouts.payOut();

    await sweepSettlements(new Date());

    const listed = await api('/v1/settlements');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    const [settlement] = listed.body.data;
    // The payout's net: each charge less 1.5% + 0.25, the refunds, the foreign charge.
    expect(settlement).toMatchObject({
      object: 'settlement',
      connection_id: merchant.connection.id,
      provider: 'stripe',
      psp_reference: payout.id,
      amount: { value: (Number(payout.amount) / 100).toFixed(2), currency: 'EUR' },
      arrival_date: new Date(Number(payout.arrival_date) * 1000).toISOString().slice(0, 10),
      status: 'paid',
      matched_count: 10,
      unmatched_count: 1,
    });

    const read = await api(`/v1/settlements/${settlement.id}`);
    expect(read.status).toBe(200);
    const matchedPayments = read.body.items.filter(
      (item: { kind: string; matched: boolean }) => item.kind === 'payment' && item.matched,
    );
    expect(matchedPayments.map((item: { payment_id: string }) => item.payment_id).sort()).toEqual(
      payments.map((payment) => payment.paymentId).sort(),
    );
    expect(
      read.body.items
        .filter((item: { refund_id: string | null }) => item.refund_id)
        .map((item: { refund_id: string }) => item.refund_id)
        .sort(),
    ).toEqual([...refunds].sort());
    expect(read.body.items.filter((item: { matched: boolean }) => !item.matched)).toEqual([
      expect.objectContaining({
        kind: 'payment',
        matched: false,
        payment_id: null,
        amount: { value: '15.00', currency: 'EUR' },
      }),
    ]);

    // Stripe's fee of each payment, reported on its balance transaction: 99.99 → 1.50 + 0.25.
    const third = await api(`/v1/payment-links/${payments[2]?.link.id}/payments`);
    expect(third.body.data[0]).toMatchObject({
      fee: { value: '1.75', currency: 'EUR' },
      net: { value: '98.24', currency: 'EUR' },
      fee_source: 'reported',
    });

    // A second sweep, once the connection is due again, reads the payout and changes nothing.
    await sweepSettlements(new Date(Date.now() + 2 * 3_600_000));
    expect(await api(`/v1/settlements/${settlement.id}`)).toMatchObject({ status: 200, body: read.body });
    expect((await api('/v1/settlements')).body.data).toEqual(listed.body.data);
    // Every call was judged by Stripe's document (an operation it lacks would not be).
    const judged = merchant.psps.stripe.exchanges.map(({ method, path }) => `${method} ${path}`);
    expect(judged).toEqual(expect.arrayContaining(['GET /v1/payouts', 'GET /v1/balance_transactions']));
    expect(merchant.psps.stripe.violations).toEqual([]);
  });

  it('answers a settlement as CSV, one row per line, every cell neutralised', async () => {
    const [settlement] = (await api('/v1/settlements')).body.data;
    const csv = await api(`/v1/settlements/${settlement.id}`, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe(
      'settlement_id,arrival_date,kind,psp_reference,payment_reference,amount,fee,net,currency,matched,link_id,payment_id,refund_id',
    );
    expect(lines).toHaveLength(12);
    expect(lines.filter((line) => line.includes(',refund,'))).toHaveLength(2);
    // A refund's negative amount would start a spreadsheet formula: neutralised, as every cell that would.
    expect(lines.some((line) => line.includes(",'-24.50,"))).toBe(true);
  });

  it('reads a later payout at the next turn, and pages through them with a cursor, as JSON or CSV', async () => {
    const { paymentId } = await paid('75.00');
    const later = merchant.psps.stripe.payouts.payOut();
    await sweepSettlements(new Date(Date.now() + 3 * 3_600_000));

    const first = await api('/v1/settlements?limit=1');
    expect(first.body.data).toHaveLength(1);
    const second = await api(`/v1/settlements?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data).toHaveLength(1);
    const both = [...first.body.data, ...second.body.data];
    expect(new Set(both.map((settlement) => settlement.id)).size).toBe(2);
    const newest = both.find((settlement) => settlement.psp_reference === later.id);
    expect(newest).toMatchObject({ matched_count: 1, unmatched_count: 0 });
    expect((await api(`/v1/settlements/${newest.id}`)).body.items[0].payment_id).toBe(paymentId);
    const end = await api(`/v1/settlements?limit=1&cursor=${second.body.next_cursor}`);
    expect(end.body).toEqual({ data: [], next_cursor: null });

    const csv = await api('/v1/settlements?limit=1', { accept: 'text/csv' });
    expect(String(csv.body).trim().split('\r\n')).toHaveLength(2);
    expect(csv.headers.get('link')).toMatch(
      /^<\/v1\/settlements\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/,
    );
  });

  it('filters by connection and arrival date, and refuses what is no filter with a problem', async () => {
    const [settlement] = (await api('/v1/settlements')).body.data;
    const day = settlement.arrival_date as string;
    const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
    const count = async (query: string) => (await api(`/v1/settlements?${query}`)).body.data.length;
    expect(await count(`arrival_date%5Bgte%5D=${day}`)).toBe(2);
    expect(await count(`arrival_date%5Blt%5D=${day}`)).toBe(0);
    expect(await count(`arrival_date%5Blt%5D=${next}`)).toBe(2);
    expect(await count(`arrival_date%5Bgte%5D=${next}`)).toBe(0);
    expect(await count(`arrival_date%5Bgte%5D=${day}&arrival_date%5Blt%5D=${next}`)).toBe(2);
    expect(await count(`connection_id=${merchant.connection.id}`)).toBe(2);
    expect((await api('/v1/settlements?connection_id=pc_000000000000000000000000')).body.data).toHaveLength(
      0,
    );

    const bad = await api('/v1/settlements?arrival_date%5Bgte%5D=yesterday&limit=500');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(bad.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      '/arrival_date[gte]',
      '/limit',
    ]);
    const missing = await api('/v1/settlements/stl_000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    expect((await api('/v1/settlements?cursor=forged')).status).toBe(422);
  });
  it('reads a backlog of payouts oldest first, a bounded number a run, and the rest at the next run', async () => {
    const count = async () => (await api('/v1/settlements?limit=100')).body.data.length;
    const before = await count();
    const backlog = [];
    for (let index = 0; index < PAYOUTS_PER_READ + 5; index++) {
      merchant.psps.stripe.clockAheadMs += 1000;
      merchant.psps.stripe.payouts.foreignCharge(100 + index, 'eur');
      backlog.push(merchant.psps.stripe.payouts.payOut().id);
    }

    await sweepSettlements(new Date(Date.now() + 4 * 3_600_000));
    const first = (await api('/v1/settlements?limit=100')).body.data.map(
      (settlement: { psp_reference: string }) => settlement.psp_reference,
    );
    expect(first).toHaveLength(before + PAYOUTS_PER_READ);
    expect(first).toEqual(expect.arrayContaining(backlog.slice(0, PAYOUTS_PER_READ)));

    await sweepSettlements(new Date(Date.now() + 6 * 3_600_000));
    expect(await count()).toBe(before + backlog.length);
    expect(merchant.psps.stripe.violations).toEqual([]);
  });
  it('leaves a connection whose PSP fails for a later read, with nothing half-stored', async () => {
    const before = (await api('/v1/settlements?limit=100')).body.data;
    merchant.psps.stripe.payouts.foreignCharge(500, 'eur');
    const payout = merchant.psps.stripe.payouts.payOut();
    const at = Date.now() + 8 * 3_600_000;

    merchant.psps.stripe.outage = 'error';
    const failed = await sweepSettlements(new Date(at));
    merchant.psps.stripe.outage = 'none';

    expect(failed).toMatchObject({ connections: 0, stored: 0, failed: [merchant.connection.id] });
    expect((await api('/v1/settlements?limit=100')).body.data).toEqual(before);
    // Not at every run while its PSP fails: a read interval later.
    expect((await sweepSettlements(new Date(at + 30 * 60_000))).connections).toBe(0);
    await sweepSettlements(new Date(at + 2 * 3_600_000));
    const after = (await api('/v1/settlements?limit=100')).body.data;
    expect(after.map((settlement: { psp_reference: string }) => settlement.psp_reference)).toContain(
      payout.id,
    );
    expect(after).toHaveLength(before.length + 1);
  });
});
