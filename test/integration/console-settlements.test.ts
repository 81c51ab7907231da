import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import {
  paidThroughStripe,
  refundedThroughStripe,
  type StripeMerchant,
} from '../../functions/adapters/psp/stripe/test/paid.ts';
import { consoleStore } from '../../functions/dependencies.ts';
import { type ConsoleClient, signInToConsole } from '../support/console.ts';
import { httpRequest } from '../support/navigate.ts';
import { startPspMerchant } from '../support/psp-stack.ts';
import { sweepSettlements } from '../support/sweepers.ts';

/**
 * The console's settlements (docs/console.md#settlements): a payout of Stripe's fake, read by the settlement
 * sweeper, in the list with its filters and on its own page, its payments and refund each a link to the payment's
 * page and what it cannot match apart; its CSV the API's own, downloaded by finance and audited; none of it for
 * another account, and no download for a viewer.
 */
let merchant: StripeMerchant;
let settlement: { id: string; psp_reference: string; arrival_date: string };
let payments: { link: { id: string }; paymentId: string }[];
let refundId: string;
let admin: ConsoleClient;

beforeAll(async () => {
  merchant = await startPspMerchant({ stripe: STRIPE_FAKE }, 'settleshop', 'stripe');
  payments = [await paidThroughStripe(merchant, '20.00'), await paidThroughStripe(merchant, '35.50')];
  refundId = await refundedThroughStripe(merchant, payments[1]?.link.id as string, '5.50');
  merchant.psps.stripe.payouts.foreignCharge(1200, 'eur');
  merchant.psps.stripe.payouts.payOut();
  await sweepSettlements(new Date());
  [settlement] = (await api('/v1/settlements')).body.data;
  admin = await signInToConsole(merchant.psps.stack.baseUrl, 'settleshop', 'admin');
});
afterAll(async () => {
  await merchant?.stop();
});

const api = (path: string, headers: Record<string, string> = {}) =>
  merchant.psps.stack.request('GET', path, { key: merchant.key.api_key, headers });

describe('the console settlements', () => {
  it('lists a payout with its PSP, connection, amount, arrival, status and counts, filtered as the API filters', async () => {
    const day = settlement.arrival_date;
    const [all, onDay, before, otherConnection, badDate, german] = await Promise.all([
      admin.get('/console/settlements'),
      admin.get(`/console/settlements?from=${day}&to=${day}&connection_id=${merchant.connection.id}`),
      admin.get(
        `/console/settlements?to=${new Date(Date.parse(day) - 86_400_000).toISOString().slice(0, 10)}`,
      ),
      admin.get('/console/settlements?connection_id=pc_000000000000000000000000'),
      admin.get('/console/settlements?from=yesterday'),
      httpRequest(`${merchant.psps.stack.baseUrl}/console/settlements`, {
        headers: { cookie: admin.cookie, 'accept-language': 'de' },
      }),
    ]);

    expect(all.status).toBe(200);
    const row = new RegExp(
      `<tr><td><a href="/console/settlements/${settlement.id}">${settlement.id}</a></td>(.*?)</tr>`,
      's',
    )
      .exec(all.text)?.[1]
      ?.replace(/<[^>]+>/g, '|')
      .replace(/\s+/g, '');
    // Both payments and the foreign charge less Stripe's fees (1.5% + 0.25 each), less the refund: €60.24.
    expect(row).toBe(`|stripe||stripe||€60.24||EUR||${day}||paid||3||1|`);
    expect(all.text).toContain(`<option value="${merchant.connection.id}">stripe</option>`);
    expect(all.text).toContain('>Last 30 days</a>');
    expect(onDay.text).toContain(settlement.id);
    expect(before.text).not.toContain(settlement.id);
    expect(before.text).toContain('No settlements.');
    expect(otherConnection.text).not.toContain(settlement.id);
    expect(badDate.status).toBe(400);
    expect(badDate.text).toContain('aria-invalid="true" aria-describedby="from-error"');
    expect(german.text).toContain('<h1>Auszahlungen</h1>');
    expect(german.text).toContain('60,24\u00a0€');
  });

  it('shows its payments and refund, each a link to the payment’s page, and what it cannot match apart', async () => {
    const page = await admin.get(`/console/settlements/${settlement.id}`);
    const [matched, unmatched] = page.text.split('<h2>Not matched</h2>');

    expect(page.status).toBe(200);
    expect(page.text).toContain(`<code>${settlement.psp_reference}</code>`);
    for (const payment of payments) {
      expect(matched).toContain(
        `<a href="/console/links/${payment.link.id}/payments/${payment.paymentId}">${payment.paymentId}</a>`,
      );
    }
    expect(matched).toContain(
      `<a href="/console/links/${payments[1]?.link.id}/payments/${payments[1]?.paymentId}">refund ${refundId}</a>`,
    );
    // A payment's line: its gross, Stripe's fee and the net, as the API reads them (20.00 less 0.30 + 0.25).
    expect(matched).toMatch(/€20\.00<\/td><td class="nowrap">€0\.55<\/td><td class="nowrap">€19\.45/);
    const { items } = (await api(`/v1/settlements/${settlement.id}`)).body;
    const foreign = items.find((item: { matched: boolean }) => !item.matched);
    expect(unmatched).toContain(`<code>${foreign.psp_reference}</code>`);
    expect(unmatched).toContain('€12.00');
    expect(unmatched).not.toContain('/console/links/');
  });

  it('downloads the API’s own CSV of the list and of a settlement’s lines, each audited as an export', async () => {
    const finance = await signInToConsole(merchant.psps.stack.baseUrl, 'settleshop', 'finance');
    const day = settlement.arrival_date;

    const [list, lines, refused] = await Promise.all([
      finance.post('/console/settlements/export', { from: day, to: day }),
      finance.post(`/console/settlements/${settlement.id}/export`, {}),
      finance.post('/console/settlements/export', { from: 'yesterday' }),
    ]);

    expect(list.status).toBe(200);
    expect(list.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(list.text).toBe(String((await api(`/v1/settlements`, { accept: 'text/csv' })).body));
    expect(lines.headers['content-disposition']).toBe(`attachment; filename="${settlement.id}.csv"`);
    expect(lines.text).toBe(
      String((await api(`/v1/settlements/${settlement.id}`, { accept: 'text/csv' })).body),
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('aria-describedby="from-error"');
    const exports = (await consoleStore().listAudit('settleshop', 100))
      .filter((entry) => entry.action === 'export.read' && entry.outcome === 'succeeded')
      .map((entry) => entry.target)
      .sort();
    expect(exports).toEqual([`settlements ${day} to ${day}`, settlement.id].sort());
  });

  it('shows a viewer the settlements without a download, and refuses one sent anyway', async () => {
    const viewer = await signInToConsole(merchant.psps.stack.baseUrl, 'settleshop', 'viewer');

    const [list, page, sent] = await Promise.all([
      viewer.get('/console/settlements'),
      viewer.get(`/console/settlements/${settlement.id}`),
      viewer.post(`/console/settlements/${settlement.id}/export`, {}),
    ]);

    expect(list.status).toBe(200);
    expect(list.text).toContain(settlement.id);
    expect(page.status).toBe(200);
    expect(page.text).toContain(payments[0]?.paymentId);
    for (const shown of [list, page]) {
      expect(shown.text).not.toContain('/export"');
      expect(shown.text).not.toContain('Download');
    }
    expect(sent.status).toBe(403);
    expect(sent.text).not.toContain('settlement_id,');
  });

  it('finds nothing of another account’s: its settlement and its CSV are not found', async () => {
    const other = await signInToConsole(merchant.psps.stack.baseUrl, 'othershop', 'admin');

    const [list, page, csv] = await Promise.all([
      other.get('/console/settlements'),
      other.get(`/console/settlements/${settlement.id}`),
      other.post(`/console/settlements/${settlement.id}/export`, {}),
    ]);

    expect(list.status).toBe(200);
    expect(list.text).not.toContain(settlement.id);
    expect(list.text).toContain('No settlements.');
    expect([page.status, csv.status]).toEqual([404, 404]);
    expect(page.text).not.toContain(settlement.psp_reference);
  });
});
