import type { Payment } from './payment.ts';

/**
 * What the merchant was told of a payment stands (docs/orchestration.md#what-the-merchant-is-told): once
 * `payment_link.payment_failed` was committed with `reported`, a payment that another writer left pending or ended
 * meanwhile without news of money (canceled, expired) records that failure, as a success wins over any end. A
 * succeeded or failed payment stands (`undefined`: nothing to write).
 */
export function asReportedFailure(payment: Payment, reported: Payment, now: Date): Payment | undefined {
  if (reported.status !== 'failed' || payment.status === 'succeeded' || payment.status === 'failed') {
    return undefined;
  }
  const { declined_attempt: _decided, money_under_way: _settled, ...ending } = payment;
  return {
    ...ending,
    status: 'failed',
    failure: reported.failure,
    provider_reference: reported.provider_reference ?? payment.provider_reference,
    next_check_at: null,
    updated_at: now.toISOString(),
    version: payment.version + 1,
  };
}
