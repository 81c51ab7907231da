import type { Square } from 'square';
import { describe, expect, it } from 'vitest';
import { classified } from '../../../../domain/payment-failure.ts';
import { square } from '../descriptor.ts';
import { paymentStateOf } from '../wire.ts';

describe("Square's declines (docs/orchestration.md#decline-codes)", () => {
  it('reads its card error through its table', () => {
    const decline = (code: string) =>
      paymentStateOf(square, {
        status: 'FAILED',
        cardDetails: { errors: [{ category: 'PAYMENT_METHOD_ERROR', code }] },
      } as Square.Payment).failure?.code;
    expect(decline('INSUFFICIENT_FUNDS')).toBe('insufficient_funds');
    expect(decline('CARD_EXPIRED')).toBe('expired_card');
    expect(decline('SOMETHING_NEW')).toBe('processing_error');
  });

  it("classes Square's own failures on a card payment as outages, not as the card's declines", () => {
    const failure = (code: string) =>
      paymentStateOf(square, {
        status: 'FAILED',
        cardDetails: { errors: [{ category: 'API_ERROR', code }] },
      } as Square.Payment).failure;
    for (const code of ['TEMPORARY_ERROR', 'SERVICE_UNAVAILABLE', 'GATEWAY_TIMEOUT']) {
      expect(classified(failure(code) ?? { code: 'declined', message: '' })).toMatchObject({
        code: 'psp_unavailable',
        class: 'outage',
      });
    }
  });
});
