import { describe, expect, it } from 'vitest';
import { MAX_LINE_ITEM_NAME_LENGTH, MAX_LINE_ITEMS } from '../../functions/domain/amount.ts';
import { newId } from '../../functions/domain/ids.ts';
import {
  MAX_REPORTED_FAILURES_PER_LINK,
  markPaid,
  reportPayment,
} from '../../functions/domain/link-events.ts';
import {
  addPayment,
  MAX_PAYMENTS_PER_LINK,
  withPaymentReference,
} from '../../functions/domain/link-payments.ts';
import {
  newPaymentId,
  type Payment,
  settle,
  toPaymentResource,
  withReference,
} from '../../functions/domain/payment.ts';
import { checkFailed } from '../../functions/domain/payment-checks.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import {
  MAX_FAILURE_MESSAGE_LENGTH,
  MAX_REFUNDS_PER_LINK,
  requestRefund,
} from '../../functions/domain/refund.ts';
import { MAX_METADATA_BYTES } from '../../functions/http/api/metadata-limits.ts';
import { MAX_DESCRIPTION_LENGTH } from '../../functions/http/api/schemas.ts';
import { a, attempt, b, declined, now, reusableLink } from '../support/checkout-situations.ts';
import { anyRefunds, orderLink } from '../support/psp-fixtures.ts';

describe('a payment the sweeper asks about', () => {
  it('is asked again later when the question failed, and stays pending even past its session', () => {
    const link = orderLink('10.00');
    const payment = { ...attempt(link, a), session_expires_at: new Date(now.getTime() - 1).toISOString() };
    const later = checkFailed(payment, now) as Payment;
    expect(later).toMatchObject({ status: 'pending', checks: 1 });
    expect(Date.parse(later.next_check_at as string)).toBeGreaterThan(now.getTime());
    const again = checkFailed(later, now) as Payment;
    expect(Date.parse(again.next_check_at as string)).toBeGreaterThan(
      Date.parse(later.next_check_at as string),
    );
    expect(checkFailed(declined(payment), now)).toBeUndefined();
  });

  it('takes the PSP reference of a payment that succeeded without one, once', () => {
    const link = orderLink('10.00');
    const succeeded = settle(
      attempt(link, a),
      { state: 'succeeded', failure: null, reference: null },
      now,
    ) as Payment;
    expect(succeeded.provider_reference).toBeNull();
    const referenced = withReference(succeeded, 'PSP123', now);
    expect(referenced).toMatchObject({ status: 'succeeded', provider_reference: 'PSP123' });
    expect(withReference(referenced as Payment, 'OTHER', now)).toBeUndefined();
    expect(withReference(succeeded, null, now)).toBeUndefined();
  });
});

describe('a link paid before its PSP reference is known', () => {
  it('takes the reference of its own payment later, and still reports another payment as a duplicate', () => {
    const link = orderLink('10.00');
    const paid = markPaid(
      link,
      { id: 'pay_1', connection_id: 'pc_a', provider: 'acmepay', reference: null, amount: link.amount! },
      now,
    )?.after as PaymentLink;
    expect(paid).toMatchObject({ status: 'paid', payment: { reference: null } });
    expect(withPaymentReference(paid, 'pay_other', 'PSP1')).toBeUndefined();
    const referenced = withPaymentReference(paid, 'pay_1', 'PSP1');
    expect(referenced).toMatchObject({ payment: { reference: 'PSP1' }, version: paid.version + 1 });
    expect(withPaymentReference(referenced as PaymentLink, 'pay_1', 'PSP2')).toBeUndefined();

    const second = settle(
      attempt(link, b),
      { state: 'succeeded', failure: null, reference: null },
      now,
    ) as Payment;
    const report = reportPayment(
      paid,
      'payment_link.duplicate_payment',
      toPaymentResource(second, paid),
      now,
    );
    expect(report?.event.type).toBe('payment_link.duplicate_payment');
  });
});

describe('payments of a reusable link', () => {
  const paidBy = (link: PaymentLink, id: string) => {
    const payment = settle(
      { ...attempt(link, a), id },
      { state: 'succeeded', failure: null, reference: `ref_${id}` },
      now,
    ) as Payment;
    return addPayment(
      link,
      { id, connection_id: 'pc_a', provider: 'acmepay', reference: `ref_${id}`, amount: link.amount! },
      toPaymentResource(payment, link),
      now,
    );
  };

  it('are each one payment_link.paid carrying it; the one that reaches max_payments completes the link', () => {
    const first = paidBy(reusableLink(2), 'pay_1');
    expect(first?.event).toMatchObject({
      type: 'payment_link.paid',
      data: { status: 'open', succeeded_payments: 1, payment: { id: 'pay_1', reference: 'ref_pay_1' } },
    });
    const second = paidBy(first?.after as PaymentLink, 'pay_2');
    expect(second?.event).toMatchObject({
      type: 'payment_link.paid',
      data: { status: 'completed', succeeded_payments: 2, payment: { id: 'pay_2' } },
    });
    // The same confirmation again records nothing.
    expect(paidBy(second?.after as PaymentLink, 'pay_2')).toBeUndefined();
    expect(paidBy(first?.after as PaymentLink, 'pay_1')).toBeUndefined();
  });

  it('records a payment beyond max_payments, refundable, and reports it as a duplicate payment', () => {
    const full = paidBy(reusableLink(1), 'pay_1')?.after as PaymentLink;
    expect(full.status).toBe('completed');
    const beyond = paidBy(full, 'pay_2');
    expect(beyond?.event).toMatchObject({
      type: 'payment_link.duplicate_payment',
      data: { status: 'completed', succeeded_payments: 2, payment: { id: 'pay_2', status: 'succeeded' } },
    });
    expect(beyond?.after.paid_payments?.pay_2).toMatchObject({ refund_reserved_minor: 0 });
    // The link's payment stays the last one it took.
    expect(beyond?.after.payment?.id).toBe('pay_1');
  });

  it('are recorded on a link canceled meanwhile, which stays canceled', () => {
    const canceled: PaymentLink = { ...reusableLink(), status: 'canceled', canceled_at: now.toISOString() };
    const late = paidBy(canceled, 'pay_1');
    expect(late?.event.type).toBe('payment_link.paid');
    expect(late?.after).toMatchObject({ status: 'canceled', paid_payments: { pay_1: { id: 'pay_1' } } });
  });

  it('never move the link to paid through the single-use markPaid', () => {
    const payment = {
      id: 'pay_1',
      connection_id: 'pc_a',
      provider: 'acmepay' as const,
      reference: 'r',
      amount: reusableLink().amount!,
    };
    expect(markPaid(reusableLink(), payment, now)).toBeUndefined();
  });
});

describe('a reusable link at every per-link limit', () => {
  it('stays far below DynamoDB’s 400 KB item limit, however many of its payments fail', () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 8 }, (_, key) => [`key_${key}`, 'm'.repeat(MAX_METADATA_BYTES / 8 - 20)]),
    );
    let link: PaymentLink = {
      ...newPaymentLink(
        { account: 'acme', mode: 'test' },
        {
          line_items: Array.from({ length: MAX_LINE_ITEMS }, () => ({
            name: 'n'.repeat(MAX_LINE_ITEM_NAME_LENGTH),
            quantity: 1,
            unit_amount: { value: '1.00', currency: 'EUR' },
          })),
          description: 'd'.repeat(MAX_DESCRIPTION_LENGTH),
          metadata,
          reusable: true,
        },
        now,
      ),
    };
    // Failures are reported while the link is open: before its payments complete it.
    let reportedFailures = 0;
    for (let failed = 0; failed < MAX_REPORTED_FAILURES_PER_LINK + 50; failed++) {
      const payment = settle(
        { ...attempt(link, a), id: newPaymentId(new Date()) },
        { state: 'failed', failure: { code: 'declined', message: 'Declined.' }, reference: null },
        now,
      ) as Payment;
      const report = reportPayment(
        link,
        'payment_link.payment_failed',
        toPaymentResource(payment, link),
        now,
      );
      if (!report) continue;
      reportedFailures++;
      link = report.after;
    }
    for (let paid = 0; paid < MAX_PAYMENTS_PER_LINK; paid++) {
      const id = newPaymentId(new Date());
      const payment = settle(
        { ...attempt(link, a), id },
        { state: 'succeeded', failure: null, reference: `pi_${'r'.repeat(24)}` },
        now,
      ) as Payment;
      link = addPayment(
        link,
        {
          id,
          connection_id: a.id,
          provider: 'acmepay',
          reference: payment.provider_reference,
          amount: link.amount!,
        },
        toPaymentResource(payment, link),
        now,
      )?.after as PaymentLink;
    }
    const paymentIds = Object.keys(link.paid_payments ?? {});
    link = {
      ...link,
      refunds: Array.from({ length: MAX_REFUNDS_PER_LINK }, (_, index) => ({
        ...requestRefund(
          link,
          { value: '0.01', currency: 'EUR' },
          newId('re'),
          now,
          anyRefunds,
          paymentIds[index],
        ),
        status: 'failed' as const,
        failure: { code: 'psp_refused', message: 'f'.repeat(MAX_FAILURE_MESSAGE_LENGTH) },
        provider_reference: `re_${'r'.repeat(24)}`,
      })),
      event_ids: [...link.event_ids, ...Array.from({ length: MAX_REFUNDS_PER_LINK * 2 }, () => newId('evt'))],
    };

    expect(reportedFailures).toBe(MAX_REPORTED_FAILURES_PER_LINK);
    // JSON spells every name and value out, as DynamoDB counts an item, plus its own quotes and braces.
    expect(Buffer.byteLength(JSON.stringify(link))).toBeLessThan(340_000);
  });
});
