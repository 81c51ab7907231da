import { describe, expect, it } from 'vitest';
import { mercadopago } from '../descriptor.ts';
import { paymentState } from '../wire.ts';

describe("Mercado Pago's declines (docs/orchestration.md#decline-codes)", () => {
  it('reads its status_detail through its table', () => {
    const mercadoPago = (detail: string) =>
      paymentState(mercadopago, {
        status: 'rejected',
        status_detail: detail,
      } as Parameters<typeof paymentState>[1]).failure?.code;
    expect(mercadoPago('cc_rejected_insufficient_amount')).toBe('insufficient_funds');
    expect(mercadoPago('cc_rejected_high_risk')).toBe('suspected_fraud');
  });
});
