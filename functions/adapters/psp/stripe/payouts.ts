import type Stripe from 'stripe';
import { fromPspMinorUnits } from '../../../domain/psp-rules.ts';
import type { PayoutStatus } from '../../../domain/settlement.ts';
import {
  MAX_PAYOUTS_LISTED,
  type PspCall,
  type PspPayout,
  type PspPayoutItem,
} from '../../../ports/psp-capabilities.ts';
import type { stripe } from './descriptor.ts';

/** Stripe's largest page (`limit`, 1 to 100). */
const PAGE = 100;

/** Balance transactions of these types are a payment's money in (`charge`; `payment` for some methods). */
const PAYMENT_TYPES = new Set(['charge', 'payment']);
/** … and these a refund's money out. */
const REFUND_TYPES = new Set(['refund', 'payment_refund']);

const amountOf = (descriptor: typeof stripe, minor: number, currency: string) =>
  fromPspMinorUnits(descriptor.amounts, minor, currency);

/** Stripe's payout statuses are ours (`pending`, `in_transit`, `paid`, `failed`, `canceled`). */
function payoutOf(descriptor: typeof stripe, payout: Stripe.Payout): PspPayout {
  return {
    reference: payout.id,
    amount: amountOf(descriptor, payout.amount, payout.currency),
    arrivalDate: new Date(payout.arrival_date * 1000).toISOString().slice(0, 10),
    status: payout.status as PayoutStatus,
    createdAt: new Date(payout.created * 1000).toISOString(),
  };
}

/** Every page of a Stripe list, one call each, up to `max` objects. */
async function allPages<T extends { id: string }>(
  call: PspCall,
  page: (startingAfter: string | undefined) => Promise<Stripe.ApiList<T>>,
  max = Number.POSITIVE_INFINITY,
): Promise<T[]> {
  const objects: T[] = [];
  let startingAfter: string | undefined;
  while (objects.length < max) {
    const { data, has_more } = await call(() => page(startingAfter));
    objects.push(...data);
    const last = data.at(-1);
    if (!has_more || !last) break;
    startingAfter = last.id;
  }
  return objects.slice(0, max);
}

/** The payouts created at or after `since` (`GET /v1/payouts`, newest first, every page). */
export async function stripePayouts(
  descriptor: typeof stripe,
  client: Stripe,
  call: PspCall,
  since: Date,
): Promise<PspPayout[]> {
  const created = { gte: Math.floor(since.getTime() / 1000) };
  const payouts = await allPages(
    call,
    (startingAfter) =>
      client.payouts.list({
        created,
        limit: PAGE,
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      }),
    MAX_PAYOUTS_LISTED,
  );
  return payouts.map((payout) => payoutOf(descriptor, payout));
}

/**
 * The balance transactions a payout contains (`GET /v1/balance_transactions?payout=po_…`), every page, each with
 * its `source` expanded: a charge or a refund names its PaymentIntent (`payment_intent`), which is the reference
 * our Stripe payments record. The payout's own transaction (`type: payout`) is the payout, not a line of it.
 */
export async function stripePayoutItems(
  descriptor: typeof stripe,
  client: Stripe,
  call: PspCall,
  payout: PspPayout,
): Promise<PspPayoutItem[]> {
  const lines = await allPages(call, (startingAfter) =>
    client.balanceTransactions.list({
      payout: payout.reference,
      limit: PAGE,
      expand: ['data.source'],
      ...(startingAfter ? { starting_after: startingAfter } : {}),
    }),
  );
  return lines.filter((line) => line.type !== 'payout').map((line) => itemOf(descriptor, line));
}

function itemOf(descriptor: typeof stripe, line: Stripe.BalanceTransaction): PspPayoutItem {
  const kind = PAYMENT_TYPES.has(line.type) ? 'payment' : REFUND_TYPES.has(line.type) ? 'refund' : 'other';
  const source = typeof line.source === 'object' && line.source !== null ? line.source : undefined;
  const paymentIntent =
    source && 'payment_intent' in source
      ? typeof source.payment_intent === 'string'
        ? source.payment_intent
        : (source.payment_intent?.id ?? null)
      : null;
  return {
    kind,
    reference: line.id,
    paymentReference: kind === 'other' ? null : paymentIntent,
    refundReference: kind === 'refund' ? (source?.id ?? null) : null,
    amount: amountOf(descriptor, line.amount, line.currency),
    fee: amountOf(descriptor, line.fee, line.currency),
    net: amountOf(descriptor, line.net, line.currency),
  };
}
