import { describe, expect, it } from 'vitest';
import { firstAttemptFollowed, type Payment } from '../../functions/domain/payment.ts';
import {
  attemptsOfBuyer,
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
    const scrubbed = scrubbedEventData(data, new Map([['pay_a', now.toISOString()]]));
    expect(JSON.stringify(scrubbed)).not.toContain('a@example.com');
    expect(JSON.stringify(scrubbed)).not.toContain('ref-1');
    expect(JSON.stringify(scrubbed)).toContain('b@example.com');
    expect(
      scrubbedEventData({ id: 'pl_b', amount: '1' }, new Map([['pay_a', now.toISOString()]])),
    ).toBeUndefined();
  });

  it("loses several payments' details at once, each with its own erasure time, and is no change once scrubbed", () => {
    const data = {
      id: 'pl_a',
      paid_payments: {
        pay_a: { id: 'pay_a', buyer: { email: 'a@example.com' } },
        pay_b: { id: 'pay_b', buyer: { email: 'b@example.com' } },
      },
    };
    const erasures = new Map([
      ['pay_a', '2027-01-01T00:00:00.000Z'],
      ['pay_b', '2026-12-01T00:00:00.000Z'],
    ]);
    const scrubbed = scrubbedEventData(data, erasures);
    expect(scrubbed).toEqual({
      id: 'pl_a',
      paid_payments: {
        pay_a: { id: 'pay_a', buyer: { erased_at: '2027-01-01T00:00:00.000Z' } },
        pay_b: { id: 'pay_b', buyer: { erased_at: '2026-12-01T00:00:00.000Z' } },
      },
    });
    expect(scrubbedEventData(scrubbed, erasures)).toBeUndefined();
  });
});

describe("a buyer's attempts on a link", () => {
  const attempt = (id: string, fields: Partial<Payment> = {}) =>
    ({ id, link_id: 'pl_a', status: 'failed', buyer: { email: `${id}@example.com` }, ...fields }) as Payment;

  it('are those with the same reference or of the same buyer cookie chain, the payment named first', () => {
    const first = attempt('pay_1', { client_reference_id: 'ref-1' });
    const retried = attempt('pay_2', { first_attempt_id: 'pay_1' });
    const paid = attempt('pay_3', { status: 'succeeded', first_attempt_id: 'pay_1' });
    const otherBrowser = attempt('pay_4', { client_reference_id: 'ref-1' });
    const stranger = attempt('pay_5', { client_reference_id: 'ref-2' });
    const strangersRetry = attempt('pay_6', { first_attempt_id: 'pay_5' });
    const sameAddress = attempt('pay_7', { opened_by: 'client-1' });
    const ofLink = [first, retried, paid, otherBrowser, stranger, strangersRetry, sameAddress].map(
      (payment) => ({
        ...payment,
        opened_by: 'client-1',
      }),
    );
    const ids = (named: Payment) => attemptsOfBuyer(named, ofLink).map((payment) => payment.id);

    // The paid attempt holds no reference: its chain finds the first attempt and the retry.
    expect(ids(paid)).toEqual(['pay_3', 'pay_1', 'pay_2']);
    // The first attempt's reference finds the attempt from another browser too.
    expect(ids(first)).toEqual(['pay_1', 'pay_2', 'pay_3', 'pay_4']);
    expect(ids(strangersRetry)).toEqual(['pay_6', 'pay_5']);
    // One address (`opened_by`) is many buyers: it links nothing.
    expect(ids(sameAddress)).toEqual(['pay_7']);
  });

  it("are chained by the buyer cookie: a new attempt names the first of the cookie's attempt, on reusable links only", () => {
    const first = attempt('pay_1');
    const second = attempt('pay_2', { first_attempt_id: 'pay_1' });
    const reusable = { reusable: true };
    expect(firstAttemptFollowed(reusable, [first], 'pay_1')).toBe('pay_1');
    expect(firstAttemptFollowed(reusable, [second, first], 'pay_2')).toBe('pay_1');
    expect(firstAttemptFollowed(reusable, [first], undefined)).toBeUndefined();
    expect(firstAttemptFollowed(reusable, [first], 'pay_unknown')).toBeUndefined();
    expect(firstAttemptFollowed({ reusable: false }, [first], 'pay_1')).toBeUndefined();
  });

  it('leave out the attempts that hold nothing left to erase', () => {
    const paid = attempt('pay_2', { first_attempt_id: 'pay_1' });
    const erased = attempt('pay_1', { buyer: { erased_at: now.toISOString() } });
    const nothing = attempt('pay_3', { first_attempt_id: 'pay_1', buyer: undefined });
    expect(attemptsOfBuyer(paid, [paid, erased, nothing]).map((payment) => payment.id)).toEqual(['pay_2']);
  });
});
