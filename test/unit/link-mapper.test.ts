import { describe, expect, it } from 'vitest';
import { UndecodableItemError } from '../../functions/adapters/dynamodb/item-decoder.ts';
import { linkDefaults, linkFromItem, linkToItem } from '../../functions/adapters/dynamodb/link-mapper.ts';
import { markPaid, reportPayment } from '../../functions/domain/link-events.ts';
import { addPayment } from '../../functions/domain/link-payments.ts';
import {
  newPaymentLink,
  type PaymentLink,
  type PaymentLinkInput,
  update,
} from '../../functions/domain/payment-link.ts';
import { paymentMoney } from '../../functions/domain/payment-money.ts';
import { requestRefund } from '../../functions/domain/refund.ts';
import { anyRefunds } from '../support/psp-fixtures.ts';

const now = new Date('2026-11-27T10:00:00Z');
const principal = { account: 'acme', mode: 'test' } as const;
const eur = (value: string) => ({ value, currency: 'EUR' });

/** The attributes every stored link had from the start (keys and indexes aside). */
const FIRST_ITEM = {
  id: 'pl_OldLink000000000000000001',
  account: 'acme',
  mode: 'test',
  status: 'open',
  amount: eur('10.00'),
  description: 'Order 1001',
  redirect_url: null,
  webhook_url: 'https://shop.example/hooks',
  metadata: null,
  created_at: '2026-11-20T09:00:00.000Z',
  expires_at: null,
  paid_at: null,
  canceled_at: null,
  expired_at: null,
  payment: null,
  psp_session: null,
  event_ids: [],
  version: 1,
};

const keysOf = (id: string) => ({
  pk: `LINK#${id}`,
  sk: 'MODE#test',
  gsi1pk: 'ACCOUNT#acme#MODE#test#LINKS',
  gsi1sk: `2026-11-20T09:00:00.000Z#${id}`,
});

describe('a link item stored before a field existed', () => {
  it('reads back with every later field at its default (a link from before routing, 2026-11-22)', () => {
    const item = { ...keysOf(FIRST_ITEM.id), ...FIRST_ITEM };
    // The kinds are read from the stored fields: a fixed amount, single-use.
    expect(linkFromItem(item)).toEqual({ ...FIRST_ITEM, ...linkDefaults(), amount_kind: 'fixed' });
    expect(linkFromItem(item)).toMatchObject({
      line_items: null,
      amount_range: null,
      payment_methods: null,
      locale: null,
      connections: null,
      reusable: false,
      max_payments: null,
      paid_payments: {},
      sessions_stale_before: null,
      reported_payments: [],
      refunds: [],
      refund_reserved_minor: 0,
      refund_refunded_minor: 0,
      refund_check_at: null,
      refund_checks: 0,
    });
  });

  it('reads a payment and a session stored before amounts were kept (2026-11-25) as at the link’s amount', () => {
    const paid = {
      ...FIRST_ITEM,
      status: 'paid',
      paid_at: '2026-11-21T09:00:00.000Z',
      payment: {
        id: 'pay_Old0000000000000000000001',
        connection_id: 'pc_x',
        provider: 'sandbox',
        reference: 'pi_1',
      },
      connections: ['pc_x'],
      reported_payments: ['pay_Old0000000000000000000000'],
      event_ids: ['evt_Old0000000000000000000001'],
      version: 2,
    };
    const open = {
      ...FIRST_ITEM,
      locale: 'nl',
      psp_session: {
        provider: 'sandbox',
        connection_id: 'pc_x',
        payment_id: 'pay_Old0000000000000000000002',
        id: 'sbcs_1',
        url: 'https://pay.example/s/1',
        expires_at: '2026-11-21T10:00:00.000Z',
      },
    };
    const readPaid = linkFromItem({ ...keysOf(paid.id), ...paid });
    expect(readPaid.payment).toEqual({ ...paid.payment, amount: eur('10.00') });
    expect(readPaid).toMatchObject({ connections: ['pc_x'], reported_payments: [paid.reported_payments[0]] });
    const readOpen = linkFromItem({ ...keysOf(open.id), ...open });
    expect(readOpen.psp_session).toEqual({ ...open.psp_session, amount: eur('10.00') });
    expect(readOpen.locale).toBe('nl');
  });

  it('reads a link refunded before refund checks existed (2026-11-23) with none due', () => {
    const refund = {
      id: 're_Old00000000000000000000001',
      object: 'refund',
      payment_link_id: FIRST_ITEM.id,
      payment_id: 'pay_Old0000000000000000000001',
      status: 'succeeded',
      amount: eur('4.00'),
      failure: null,
      provider_reference: 're_psp_1',
      created_at: '2026-11-22T09:00:00.000Z',
      updated_at: '2026-11-22T09:00:01.000Z',
    };
    const item = {
      ...FIRST_ITEM,
      status: 'paid',
      payment: { id: refund.payment_id, connection_id: 'pc_x', provider: 'sandbox', reference: 'p' },
      refunds: [refund],
      refund_reserved_minor: 400,
      refund_refunded_minor: 400,
    };
    expect(linkFromItem({ ...keysOf(item.id), ...item })).toMatchObject({
      refunds: [refund],
      refund_reserved_minor: 400,
      refund_refunded_minor: 400,
      refund_check_at: null,
      refund_checks: 0,
    });
  });

  it('reads a reusable link from before sessions were marked stale (2026-11-25) with none marked', () => {
    const item = { ...FIRST_ITEM, locale: null, reusable: true, max_payments: 3, paid_payments: {} };
    expect(linkFromItem({ ...keysOf(item.id), ...item })).toMatchObject({
      reusable: true,
      max_payments: 3,
      sessions_stale_before: null,
    });
  });

  it('reads a reusable link’s payment paid before amounts were kept (2026-11-25) as at the link’s amount', () => {
    const paid = {
      id: 'pay_Old0000000000000000000003',
      connection_id: 'pc_x',
      provider: 'sandbox',
      reference: 'pi_3',
      paid_at: '2026-11-25T19:40:00.000Z',
      refund_reserved_minor: 0,
      refund_refunded_minor: 0,
    };
    const item = {
      ...FIRST_ITEM,
      locale: null,
      reusable: true,
      max_payments: null,
      paid_payments: { [paid.id]: paid },
    };
    expect(linkFromItem({ ...keysOf(item.id), ...item }).paid_payments).toEqual({
      [paid.id]: { ...paid, amount: eur('10.00') },
    });
  });

  it('refuses a session without an amount on a link without one, which no item ever held', () => {
    const item = {
      ...FIRST_ITEM,
      amount: null,
      amount_range: { currency: 'EUR', minimum: '1.00', maximum: '9.00', suggested: null },
      psp_session: { ...({} as Record<string, unknown>), provider: 'sandbox', payment_id: 'pay_1' },
    };
    expect(() => linkFromItem(item)).toThrow(
      /does not decode \(psp_session: expected an amount, on it or on its link, found nothing\)/,
    );
  });
});

const KINDS: [string, PaymentLinkInput][] = [
  ['fixed', { amount: eur('10.00') }],
  ['line items', { line_items: [{ name: 'Tea', quantity: 2, unit_amount: eur('2.50'), tax_rate: '9' }] }],
  ['range', { amount_range: { currency: 'EUR', minimum: '1.00', maximum: '50.00', suggested: '5.00' } }],
];

const payment = (id: string, link: PaymentLink) => ({
  id,
  connection_id: 'pc_x',
  provider: 'sandbox' as const,
  reference: `p_${id}`,
  amount: link.amount ?? eur('7.00'),
});

const resourceOf = (paid: ReturnType<typeof payment>) => ({
  ...paid,
  object: 'payment' as const,
  status: 'succeeded' as const,
  provider_reference: paid.reference,
  failure: null,
  ...paymentMoney(paid.amount, 0, undefined),
  created_at: now.toISOString(),
  updated_at: now.toISOString(),
});

/** The link a few steps on: paid (reusable: twice), a failure reported, a refund reserved. */
function used(link: PaymentLink): PaymentLink {
  const first = payment('pay_1', link);
  const paid = link.reusable
    ? addPayment(link, first, resourceOf(first), now)?.after
    : markPaid(link, first, now)?.after;
  if (!paid) throw new Error('not paid');
  const refund = requestRefund(paid, eur('1.00'), 're_1', now, anyRefunds, 'pay_1');
  return {
    ...paid,
    reported_payments: ['pay_0'],
    refunds: [refund],
    refund_reserved_minor: 100,
    refund_check_at: now.toISOString(),
  };
}

describe('a link written and read back', () => {
  for (const [kind, input] of KINDS) {
    for (const reusable of [false, true]) {
      const name = `${kind}, ${reusable ? 'reusable' : 'single-use'}`;

      it(`is the same link: ${name}, new and after payments and refunds`, () => {
        const link = newPaymentLink(principal, { ...input, reusable, locale: 'de' }, now);
        expect(linkFromItem(linkToItem(link))).toEqual(link);
        const later = used(link);
        expect(linkFromItem(linkToItem(later))).toEqual(later);
        const changed = update(link, { description: 'new' }, now);
        expect(linkFromItem(linkToItem(changed))).toEqual(changed);
      });
    }
  }

  it('stores a new link in the shape it always had: later fields only once they are set, end times once they happen', () => {
    const single = newPaymentLink(principal, { amount: eur('10.00') }, now);
    const firstFields = Object.keys(FIRST_ITEM).filter(
      (field) => field !== 'canceled_at' && field !== 'expired_at',
    );
    expect(Object.keys(linkToItem(single)).sort()).toEqual(
      [...Object.keys(keysOf(single.id)), ...firstFields, 'locale'].sort(),
    );
    expect(linkToItem({ ...single, status: 'canceled', canceled_at: now.toISOString() })).toMatchObject({
      canceled_at: now.toISOString(),
    });
    expect(linkFromItem(linkToItem(single))).toMatchObject({ canceled_at: null, expired_at: null });
    const reusable = newPaymentLink(
      principal,
      {
        amount_range: { currency: 'EUR', minimum: '1', maximum: '9' },
        reusable: true,
        connections: ['pc_x'],
      },
      now,
    );
    expect(Object.keys(linkToItem(reusable)).sort()).toEqual(
      [
        ...Object.keys(keysOf(reusable.id)),
        ...firstFields,
        'locale',
        'amount_range',
        'reusable',
        'max_payments',
        'paid_payments',
        'connections',
        'payments_in_order',
      ].sort(),
    );
  });

  it('stores each held place of a link with max_payments as an attribute of its own, and reads them back', () => {
    const link = newPaymentLink(principal, { amount: eur('10.00'), reusable: true, max_payments: 3 }, now);
    expect(Object.keys(linkToItem(link)).filter((name) => name.startsWith('place'))).toEqual([]);
    const places = {
      0: { holder: 'pay_1', until: null },
      2: { holder: 'opening_x', until: now.toISOString() },
    };
    const item = linkToItem({ ...link, places });
    expect(item).toMatchObject({ place_0: places[0], place_2: places[2] });
    expect(item).not.toHaveProperty('places');
    expect(linkFromItem(item)).toEqual({ ...link, places });
  });

  it('keeps a reported payment and refund bookkeeping once there is some', () => {
    const link = newPaymentLink(principal, { amount: eur('10.00') }, now);
    const failed = { ...resourceOf(payment('pay_9', link)), status: 'failed' as const };
    const reported = reportPayment(link, 'payment_link.payment_failed', failed, now)?.after as PaymentLink;
    expect(linkToItem(reported)).toMatchObject({ reported_payments: ['pay_9'] });
    expect(linkToItem(reported)).not.toHaveProperty('refunds');
    expect(linkToItem(used(link))).toMatchObject({
      refund_reserved_minor: 100,
      refund_refunded_minor: 0,
      refund_check_at: now.toISOString(),
      refund_checks: 0,
    });
  });
});

describe('a link item that is not a link', () => {
  const item = { ...keysOf(FIRST_ITEM.id), ...FIRST_ITEM };
  const reasonOf = (stored: Record<string, unknown>) => {
    try {
      linkFromItem(stored);
    } catch (error) {
      if (error instanceof UndecodableItemError) return error.reason;
      throw error;
    }
    return 'decoded';
  };

  it('is refused, naming the attribute: a status it cannot have, a place that is not a place', () => {
    expect(reasonOf({ ...item, status: 'archived' })).toBe(
      'status: expected one of open, paid, completed, canceled, expired, found a string',
    );
    expect(reasonOf({ ...item, reusable: true, max_payments: 2, place_1: 'pay_1' })).toBe(
      'place_1: expected a map, found a string',
    );
    expect(reasonOf({ ...item, event_ids: null })).toBe('event_ids: expected a list, found null');
  });

  it('reads the provider of its payment and session as every stored provider is read', () => {
    const payment = {
      id: 'pay_1',
      connection_id: 'pc_x',
      provider: 'acmepay',
      reference: 'p',
      amount: eur('10.00'),
    };
    expect(reasonOf({ ...item, status: 'paid', payment })).toMatch(
      /^payment\.provider: expected one of sandbox, /,
    );
  });
});
