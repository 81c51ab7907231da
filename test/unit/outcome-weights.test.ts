import { describe, expect, it } from 'vitest';
import { CLIENT_WINDOW_MS, OUTCOME_WEIGHTS, weighOutcome } from '../../functions/domain/outcome-weights.ts';
import type { Payment, PaymentState } from '../../functions/domain/payment.ts';

const start = Date.parse('2026-11-30T10:00:00.000Z');
let next = 0;

/** A payment of `client` at `connection`, opened and ended `minutes` after the start with `status`. */
function payment(
  client: string | undefined,
  connection: string,
  status: PaymentState,
  minutes: number,
): Payment {
  const at = new Date(start + minutes * 60_000).toISOString();
  return {
    id: `pay_${String(next++).padStart(4, '0')}`,
    link_id: 'pl_link',
    account: 'acme',
    mode: 'live',
    connection_id: connection,
    provider: 'sandbox',
    status,
    provider_reference: null,
    failure: null,
    session_id: `cs_${next}`,
    session_expires_at: null,
    next_check_at: null,
    checks: 0,
    ...(client ? { opened_by: client } : {}),
    created_at: at,
    updated_at: at,
    version: 2,
  };
}

describe('how an outcome weighs for learning', () => {
  it('counts a decline the PSP reported fully, a session left at half, and a payment always', () => {
    const declined = payment('c1', 'pc_a', 'failed', 0);
    const left = payment('c1', 'pc_b', 'expired', 0);
    const paid = payment('c1', 'pc_a', 'succeeded', 1);

    expect(weighOutcome(declined, 'failed', [declined])).toEqual({ kind: 'count', weight: 1 });
    expect(weighOutcome(left, 'left', [left])).toEqual({ kind: 'count', weight: 0.5 });
    expect(OUTCOME_WEIGHTS.left).toBeLessThan(OUTCOME_WEIGHTS.failed);
    expect(weighOutcome(paid, 'paid', [declined, paid])).toEqual({ kind: 'count', weight: 1 });
  });

  it("takes one client's second unpaid outcome at a connection within the hour for a flood, and takes back the first", () => {
    const first = payment('c1', 'pc_a', 'failed', 0);
    const second = payment('c1', 'pc_a', 'canceled', 5);
    const third = payment('c1', 'pc_a', 'failed', 10);
    const all = [first, second, third];

    expect(weighOutcome(first, 'failed', all)).toEqual({ kind: 'count', weight: 1 });
    expect(weighOutcome(second, 'left', all)).toEqual({
      kind: 'flood',
      takeBack: { payment: first, outcome: 'failed', weight: 1 },
    });
    expect(weighOutcome(third, 'failed', all)).toEqual({ kind: 'flood', takeBack: undefined });
  });

  it("counts another client's, another connection's, an hour later's and an unknown client's outcomes", () => {
    const first = payment('c1', 'pc_a', 'failed', 0);
    const other = [
      payment('c2', 'pc_a', 'failed', 1),
      payment('c1', 'pc_b', 'failed', 2),
      payment('c1', 'pc_a', 'failed', CLIENT_WINDOW_MS / 60_000 + 1),
      payment(undefined, 'pc_a', 'failed', 3),
    ];

    for (const later of other) {
      expect(weighOutcome(later, 'failed', [first, ...other])).toEqual({ kind: 'count', weight: 1 });
    }
  });

  it('takes back only an outcome that counted: not one that was itself part of an earlier flood', () => {
    const oldest = payment('c1', 'pc_a', 'failed', 0);
    const flooded = payment('c1', 'pc_a', 'failed', 40);
    const latest = payment('c1', 'pc_a', 'failed', 90);
    const all = [oldest, flooded, latest];

    expect(weighOutcome(flooded, 'failed', all)).toMatchObject({ kind: 'flood' });
    // Only `flooded` is within the hour before `latest`, and it never counted: nothing to take back.
    expect(weighOutcome(latest, 'failed', all)).toEqual({ kind: 'flood', takeBack: undefined });
  });

  it('orders two outcomes at the same instant by id, so exactly one of them counts', () => {
    const a = payment('c1', 'pc_a', 'failed', 0);
    const b = { ...payment('c1', 'pc_a', 'failed', 0), updated_at: a.updated_at };
    const kinds = [weighOutcome(a, 'failed', [a, b]).kind, weighOutcome(b, 'failed', [a, b]).kind];

    expect(kinds.sort()).toEqual(['count', 'flood']);
  });
});
