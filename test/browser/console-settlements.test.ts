import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STRIPE_FAKE } from '../../functions/adapters/psp/stripe/test/fake.ts';
import { settlementRepository } from '../../functions/dependencies.ts';
import type { Settlement, SettlementItem } from '../../functions/domain/settlement.ts';
import { settlementId } from '../../functions/use-cases/settlements.ts';
import { axeViolations } from '../support/axe.ts';
import { seedPayment } from '../support/books.ts';
import { type BrowserStack, saveConsoleScreenshot, startBrowserStack } from '../support/browser.ts';
import { addConnection } from '../support/connections.ts';
import { consoleSignInLink } from '../support/console.ts';

/**
 * The console's settlements in Chromium (docs/console.md#settlements): the list and a settlement's page, from the
 * list to a matched payment's page, each passing axe; with UPDATE_SCREENSHOTS=1 the settlement's page is saved to
 * docs/console/settlements.png. The payout is stored as the sweeper stores one (the sweep itself is
 * test/integration/console-settlements.test.ts's).
 */
let fixture: BrowserStack;
const ACCOUNT = 'console-settlements-browser';
let paymentPath: string;

const euros = (value: string) => ({ value, currency: 'EUR' });

/** A line of the payout: its gross, Stripe's fee (1.5% + 0.25) and the net. */
function line(reference: string, value: string, fee: string, net: string): SettlementItem {
  return {
    kind: value.startsWith('-') ? 'refund' : 'payment',
    psp_reference: `txn_${reference}`,
    payment_reference: `pi_${reference}`,
    amount: euros(value),
    fee: euros(fee),
    net: euros(net),
    matched: false,
    link_id: null,
    payment_id: null,
    refund_id: null,
  };
}

beforeAll(async () => {
  fixture = await startBrowserStack();
  const connection = await addConnection({
    account: ACCOUNT,
    mode: 'test',
    provider: 'stripe',
    name: 'Stripe EUR',
    credentials: { ...STRIPE_FAKE.credentials },
  });
  const at = new Date().toISOString();
  const paid = await Promise.all(
    ['49.90', '120.00'].map((value) =>
      seedPayment(ACCOUNT, { created_at: at, amount: euros(value), connection_id: connection.id }),
    ),
  );
  const [first, second] = paid.map((payment) => ({
    matched: true,
    link_id: payment.link_id,
    payment_id: payment.id,
  }));
  paymentPath = `/console/links/${first?.link_id}/payments/${first?.payment_id}`;
  const items: SettlementItem[] = [
    { ...line('1', '49.90', '1.00', '48.90'), ...first },
    { ...line('2', '120.00', '2.05', '117.95'), ...second },
    { ...line('3', '-20.00', '0.00', '-20.00'), ...second, refund_id: 're_000000000000000000000001' },
    line('4', '15.00', '0.48', '14.52'),
  ];
  const settlement: Settlement = {
    id: settlementId(connection.id, 'po_console'),
    object: 'settlement',
    account: ACCOUNT,
    mode: 'test',
    connection_id: connection.id,
    provider: 'stripe',
    psp_reference: 'po_console',
    amount: euros('161.37'),
    arrival_date: at.slice(0, 10),
    status: 'paid',
    matched_count: 3,
    unmatched_count: 1,
    psp_created_at: at,
    created_at: at,
    updated_at: at,
  };
  await settlementRepository().save(settlement, items);
});
afterAll(async () => {
  await fixture?.stop();
});

describe('the console settlements in Chromium', () => {
  it('lists a payout, opens it with its matched and unmatched lines, and goes on to a payment, each page passing axe', async () => {
    const context = await fixture.browser.newContext({
      viewport: { width: 1366, height: 900 },
      locale: 'en',
    });
    const page = await context.newPage();
    await page.goto(await consoleSignInLink(fixture.stack.baseUrl, ACCOUNT, 'finance'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/overview$/);

    await page.getByRole('link', { name: 'Settlements', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: 'Stripe EUR' });
    expect(await row.textContent()).toMatch(/stripe.*€161\.37.*EUR.*paid.*3.*1/s);
    expect(await page.getByRole('button', { name: 'Download CSV' }).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);

    await row.getByRole('link').click();
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'Payments and refunds',
      'Not matched',
    ]);
    expect(await page.getByRole('row').filter({ hasText: 'txn_4' }).textContent()).toContain('€14.52');
    expect(await axeViolations(page)).toEqual([]);
    await saveConsoleScreenshot(page, 'settlements');

    expect(await page.getByRole('link', { name: 'refund re_000000000000000000000001' }).count()).toBe(1);
    await page.locator(`a[href="${paymentPath}"]`).click();
    await page.waitForURL((url) => url.pathname === paymentPath);
    await context.close();
  });
});
