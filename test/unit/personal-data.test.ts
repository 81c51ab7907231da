import { describe, expect, it } from 'vitest';
import type { Payment } from '../../functions/domain/payment.ts';
import {
  erasedPayment,
  firstRetentionCheck,
  holdsPersonalData,
  retentionStep,
  scrubbedEventData,
} from '../../functions/domain/personal-data.ts';

const now = new Date('2027-01-01T00:00:00.000Z');
const payment = {
  id: 'pay_a',
  link_id: 'pl_a',
  created_at: '2026-01-01T00:00:00.000Z',
  client_reference_id: 'ref-1',
  buyer: { email: 'a@example.com' },
  version: 3,
} as Payment;

describe('personal data of a payment', () => {
  it('is erased whole: the buyer becomes its erasure, the reference and the answers go, the payment stays', () => {
    const answers = [{ key: 'student', label: 'Student id', type: 'text' as const, value: 's-123' }];
    const erased = erasedPayment({ ...payment, custom_fields: answers, quantities: [2] }, now);
    expect(erased).toMatchObject({ id: 'pay_a', buyer: { erased_at: now.toISOString() }, version: 4 });
    expect(erased).toMatchObject({ quantities: [2] });
    expect(erased).not.toHaveProperty('client_reference_id');
    expect(erased).not.toHaveProperty('custom_fields');
    expect(holdsPersonalData(erased as Payment)).toBe(false);
    expect(erasedPayment(erased as Payment, now)).toBeUndefined();
  });

  it('is first looked at 30 days after the payment, then erased once the period has passed', () => {
    expect(firstRetentionCheck(payment)).toBe('2026-01-31T00:00:00.000Z');
    expect(retentionStep(payment, 365, now)).toEqual({ erase: true });
    expect(retentionStep(payment, 400, now)).toEqual({ erase: false, checkAt: '2027-02-05T00:00:00.000Z' });
  });
});

describe('an event carrying the payment', () => {
  it("loses the payment's details wherever the payment is, and keeps every other payment's", () => {
    const data = {
      id: 'pl_a',
      payment: { id: 'pay_a', buyer: { email: 'a@example.com' }, client_reference_id: 'ref-1' },
      paid_payments: { pay_b: { id: 'pay_b', buyer: { email: 'b@example.com' } } },
    };
    const scrubbed = scrubbedEventData(data, 'pay_a', now);
    expect(JSON.stringify(scrubbed)).not.toContain('a@example.com');
    expect(JSON.stringify(scrubbed)).not.toContain('ref-1');
    expect(JSON.stringify(scrubbed)).toContain('b@example.com');
    expect(scrubbedEventData({ id: 'pl_b', amount: '1' }, 'pay_a', now)).toBeUndefined();
  });
});
