import type { MollieClient, Page } from '@mollie/api-client';
import { type Amount, fromMinorUnits, toMinorUnits } from '../../../domain/money.ts';
import type { PayoutStatus } from '../../../domain/settlement.ts';
import {
  MAX_PAYOUTS_LISTED,
  type PspCall,
  type PspPayout,
  type PspPayoutItem,
} from '../../../ports/psp-capabilities.ts';

/** Mollie's largest page (`limit`, 1 to 250). */
const PAGE = 250;

/**
 * A settlement's status as a payout's: `open` still gathers payments (not paid out yet), `pending` and
 * `processing-at-bank` are on their way, `paidout` arrived.
 */
const STATUSES: Record<string, PayoutStatus> = {
  open: 'pending',
  pending: 'in_transit',
  'processing-at-bank': 'in_transit',
  paidout: 'paid',
  failed: 'failed',
};

interface MollieSettlement {
  id: string;
  createdAt: string;
  settledAt?: string | null;
  status: string;
  amount: Amount;
}

function payoutOf(settlement: MollieSettlement): PspPayout {
  return {
    reference: settlement.id,
    amount: { value: settlement.amount.value, currency: settlement.amount.currency },
    arrivalDate: settlement.settledAt ? settlement.settledAt.slice(0, 10) : null,
    status: STATUSES[settlement.status] ?? 'pending',
    createdAt: new Date(settlement.createdAt).toISOString(),
  };
}

/** Every item of a Mollie list, following its `next` links, one call each. */
async function allPages<T>(call: PspCall, first: () => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let page: Page<T> | undefined = await call(first);
  while (page) {
    items.push(...page);
    const next: (() => Promise<Page<T>>) | undefined = page.nextPage;
    page = next ? await call(next) : undefined;
  }
  return items;
}

/**
 * The settlements created at or after `since` (`GET /v2/settlements`, newest first: Mollie has no filter by time,
 * so pages are read until an older one), one call a page, at most `MAX_PAYOUTS_LISTED`.
 */
export async function mollieSettlements(
  client: MollieClient,
  call: PspCall,
  since: Date,
): Promise<PspPayout[]> {
  const payouts: PspPayout[] = [];
  let page: Page<MollieSettlement> | undefined = await call(() => client.settlements.page({ limit: PAGE }));
  while (page) {
    for (const settlement of page) {
      if (new Date(settlement.createdAt) < since || payouts.length >= MAX_PAYOUTS_LISTED) return payouts;
      payouts.push(payoutOf(settlement));
    }
    const next: (() => Promise<Page<MollieSettlement>>) | undefined = page.nextPage;
    page = next ? await call(next) : undefined;
  }
  return payouts;
}

const minus = (amount: Amount, less: Amount): Amount => ({
  value: fromMinorUnits(toMinorUnits(amount) - toMinorUnits(less), amount.currency),
  currency: amount.currency,
});
const negated = (amount: Amount): Amount => ({
  value: fromMinorUnits(-toMinorUnits(amount), amount.currency),
  currency: amount.currency,
});

/**
 * The payments and refunds a settlement contains (`/v2/settlements/{id}/payments`, `/refunds`, every page). A
 * payment's `settlementAmount` is what Mollie credits for it: its fee is the rest of its `amount` (when both are
 * in one currency). A refund's `settlementAmount` is negative; Mollie reports no fee of its own on it.
 */
export async function mollieSettlementItems(
  client: MollieClient,
  call: PspCall,
  payout: PspPayout,
): Promise<PspPayoutItem[]> {
  const settlementId = payout.reference;
  const payments = await allPages(call, () => client.settlementPayments.page({ settlementId, limit: PAGE }));
  const refunds = await allPages(call, () => client.settlementRefunds.page({ settlementId, limit: PAGE }));
  return [
    ...payments.map((payment): PspPayoutItem => {
      const net = payment.settlementAmount ?? payment.amount;
      return {
        kind: 'payment',
        reference: payment.id,
        paymentReference: payment.id,
        refundReference: null,
        amount: payment.amount,
        fee: net.currency === payment.amount.currency ? minus(payment.amount, net) : null,
        net,
      };
    }),
    ...refunds.map(
      (refund): PspPayoutItem => ({
        kind: 'refund',
        reference: refund.id,
        paymentReference: refund.paymentId,
        // Our Mollie refunds record `tr_…/re_…` (a refund is read through its payment).
        refundReference: `${refund.paymentId}/${refund.id}`,
        amount: negated(refund.amount),
        fee: null,
        net: refund.settlementAmount ?? negated(refund.amount),
      }),
    ),
  ];
}
