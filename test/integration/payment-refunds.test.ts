import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRefundedTotal } from '../../functions/adapters/dynamodb/payment-refunds.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { config } from '../../functions/config.ts';
import { paymentRepository } from '../../functions/dependencies.ts';
import { ConcurrentModificationError } from '../../functions/domain/errors.ts';
import { toMinorUnits } from '../../functions/domain/money.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { seedPayment, storedPayments } from '../support/books.ts';
import { buyersAt } from '../support/buyers.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * A payment's `amount_refunded` is a copy of the total its link's item holds (docs/data-model.md#books): the copy
 * lands after each settlement, and must end as the link's total however the settlements race.
 */

let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('payment-refunds', 'test');
});
afterAll(() => stack.stop());

const copy = (payment: { link_id: string; id: string }, refundedMinor: number, linkVersion: number) =>
  copyRefundedTotal(
    documentClient(),
    config().TABLE_NAME,
    { id: payment.link_id, mode: 'test' },
    { paymentId: payment.id, refundedMinor, linkVersion },
  );

describe("the copy of a payment's refund total", () => {
  it("keeps the latest of the link's versions, whatever order the copies land in, and a repeat changes nothing", async () => {
    const payment = await seedPayment('payment-refunds', { created_at: new Date().toISOString() });

    expect(await copy(payment, 3000, 6)).toBe(true);
    expect(await copy(payment, 1000, 5)).toBe(false);
    expect(await copy(payment, 3000, 6)).toBe(false);

    const stored = await storedPayments().get(payment.link_id, 'test', payment.id);
    expect(stored).toMatchObject({ refunded_minor: 3000, refunded_version: 6, version: payment.version + 1 });
  });

  it('cannot be undone by a write of the payment read before it', async () => {
    const payment = await seedPayment('payment-refunds', { created_at: new Date().toISOString() });
    await copy(payment, 500, 3);

    await expect(
      storedPayments().save({ ...payment, retention_check_at: new Date().toISOString() }, payment),
    ).rejects.toBeInstanceOf(ConcurrentModificationError);
    expect(await storedPayments().get(payment.link_id, 'test', payment.id)).toMatchObject({
      refunded_minor: 500,
    });
  });

  it('leaves alone a payment that has no item of its own', async () => {
    expect(
      await copy({ link_id: 'pl_NoPayments0000000000000', id: 'pay_NoItem00000000000000000' }, 100, 2),
    ).toBe(false);
  });
});

describe('refunds racing on the payments of a reusable link', () => {
  it("leave each payment's amount_refunded at the sum of its succeeded refunds", async () => {
    const link = await createLink(stack, key.api_key, {
      amount: { value: '10.00', currency: 'EUR' },
      reusable: true,
    });
    const paid: string[] = [];
    for (const buyer of buyersAt(52, 2)) {
      await buyer.visit(link.checkout_url);
      const payment = await paymentRepository().get(link.id, 'test', buyer.payment ?? '');
      await httpRequest(`${stack.baseUrl}/sandbox/checkout/${payment?.session_id}/pay`, { method: 'POST' });
      paid.push(payment?.id as string);
    }

    // 24 refunds of 0.50 at once, alternately on each payment: 6.00 of each 10.00.
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, n) =>
        stack.request('POST', `/v1/payment-links/${link.id}/refunds`, {
          key: key.api_key,
          body: { payment_id: paid[n % 2], amount: { value: '0.50', currency: 'EUR' } },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).filter((status) => status !== 201)).toEqual([]);

    const refunds = (await stack.request('GET', `/v1/payment-links/${link.id}/refunds`, { key: key.api_key }))
      .body.data as { payment_id: string; status: string; amount: { value: string; currency: string } }[];
    const payments = (
      await stack.request('GET', `/v1/payment-links/${link.id}/payments`, { key: key.api_key })
    ).body.data as { id: string; amount_refunded: { value: string }; refund_status: string }[];
    const stored = await storedLink(link.id);
    for (const id of paid) {
      const succeeded = refunds.filter((refund) => refund.payment_id === id && refund.status === 'succeeded');
      const total = succeeded.reduce((sum, refund) => sum + toMinorUnits(refund.amount), 0n);
      expect(total).toBe(600n);
      const payment = payments.find((candidate) => candidate.id === id);
      expect(payment).toMatchObject({ amount_refunded: { value: '6.00' }, refund_status: 'partial' });
      expect(stored.paid_payments[id]?.refund_refunded_minor).toBe(600);
    }
  });
});
