import { expect } from 'vitest';
import { newId } from '../../functions/domain/ids.ts';
import type { Psp, PspRefundStatus } from '../../functions/ports/psp.ts';
import { canRefund, type Refunds } from '../../functions/ports/psp-capabilities.ts';
import { type ConformanceRun, forEveryPsp, scenario } from '../support/psp-conformance.ts';
import { paidSession } from '../support/psp-conformance-steps.ts';
import { orderLink, sessionRequest } from '../support/psp-fixtures.ts';

/**
 * The conformance suite, refunds (docs/orchestration.md#conformance): every registered PSP that declares refunds
 * refunds a payment, in part where it declares so, and its outcome is read back with our ids; a retried refund is
 * the same refund at the PSP. A scenario whose capability the PSP does not declare is skipped by name.
 */

/** A refundable adapter and a payment of 10.00 it took. */
async function paidAt(run: ConformanceRun) {
  const { psp, connection } = await run.adapter();
  if (!canRefund(psp)) throw new Error('it declares refunds without Refunds');
  const request = sessionRequest(orderLink('10.00', run.currency), connection);
  const { status } = await paidSession(run, psp, request);
  if (!status.paymentReference) throw new Error('a paid session without its reference');
  return { psp, linkId: request.link.id, reference: status.paymentReference };
}

/** The refund's outcome as the service learns it: at once, or once the PSP settles it (its notification first). */
async function outcomeOf(run: ConformanceRun, psp: Psp & Refunds, asked: PspRefundStatus) {
  if (asked.state !== 'pending') return asked;
  const notification = await run.fake.settleRefund?.(asked.reference, 'succeeded');
  if (notification) {
    const items = await psp.verifyNotification(notification.body, notification.headers);
    expect(items.map((item) => item.refundReference)).toContain(asked.reference);
  }
  return psp.retrieveRefund(asked.reference);
}

forEveryPsp((descriptor, run) => {
  scenario(
    descriptor,
    'refunds a payment, with our ids on the refund, and reads its outcome back',
    'refunds',
    async () => {
      const { psp, linkId, reference } = await paidAt(run());
      const refundId = newId('re');
      const amount = { value: '10.00', currency: run().currency };
      const asked = await psp.refund({ refundId, linkId, paymentReference: reference, amount });
      expect(asked).toMatchObject({ refundId, linkId });
      expect((await outcomeOf(run(), psp, asked)).state).toBe('succeeded');
    },
  );

  scenario(
    descriptor,
    'refunds part of a payment, and reads its outcome back',
    'partial_refunds',
    async () => {
      const { psp, linkId, reference } = await paidAt(run());
      const amount = { value: '4.00', currency: run().currency };
      const asked = await psp.refund({
        refundId: newId('re'),
        linkId,
        paymentReference: reference,
        amount,
      });
      expect((await outcomeOf(run(), psp, asked)).state).toBe('succeeded');
    },
  );

  scenario(
    descriptor,
    'answers a retried refund with the same refund (the same key, the same object)',
    'refunds',
    async () => {
      const { psp, linkId, reference } = await paidAt(run());
      // A PSP that keeps no key says so (`idempotencyWindowMs` 0): the service never asks it for a refund twice.
      if (psp.idempotencyWindowMs === 0) return;
      const request = {
        refundId: newId('re'),
        linkId,
        paymentReference: reference,
        amount: { value: '3.00', currency: run().currency },
      };
      const first = await psp.refund(request);
      const again = await psp.refund(request);
      expect(again.reference).toBe(first.reference);
    },
  );
});
