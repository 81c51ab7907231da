import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkRepository } from '../../functions/dependencies.ts';
import { InvalidStateError } from '../../functions/domain/errors.ts';
import { cancel, markPaid } from '../../functions/domain/link-events.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { EventQueue } from '../../functions/ports/event-queue.ts';
import { applyTransition } from '../../functions/use-cases/link-transitions.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const base = 'https://pay.example/checkout';

/** Records what was published, so a test can count events per transition. */
function recordingQueue(): EventQueue & { published: string[] } {
  const published: string[] = [];
  return { published, publish: async (event) => void published.push(event.id) };
}

async function storedOpenLink(): Promise<PaymentLink> {
  const link = newPaymentLink(
    { account: 'acme', mode: 'test' },
    { amount: { value: '3', currency: 'EUR' } },
    new Date(),
  );
  await linkRepository().create(link);
  return link;
}

const load = (link: PaymentLink) => async () => (await linkRepository().get(link.id, 'test')) as PaymentLink;

describe('racing transitions against the embedded DynamoDB', () => {
  it('cancel versus pay: one wins first, the link always ends paid, and each committed transition has one event', async () => {
    for (let round = 0; round < 5; round++) {
      const link = await storedOpenLink();
      const queue = recordingQueue();
      const deps = { links: linkRepository(), queue, now: () => new Date(), checkoutBase: base };
      const [canceled, paid] = await Promise.allSettled([
        applyTransition(deps, load(link), (current, now) => cancel(current, now)),
        applyTransition(deps, load(link), (current, now) =>
          markPaid(
            current,
            {
              id: 'pay_x',
              connection_id: 'pc_x',
              provider: 'sandbox' as const,
              reference: `pay_${round}`,
              amount: current.amount!,
            },
            now,
          ),
        ),
      ]);
      const stored = (await linkRepository().get(link.id, 'test')) as PaymentLink;
      expect(stored.status).toBe('paid');
      expect(stored.payment).toEqual({
        id: 'pay_x',
        connection_id: 'pc_x',
        provider: 'sandbox' as const,
        reference: `pay_${round}`,
        amount: link.amount,
      });
      expect(paid.status).toBe('fulfilled');
      if (canceled.status === 'fulfilled') {
        // Cancel won first; the payment was still recorded on top of it (docs/api.md#states-expiry-and-webhooks).
        expect(stored.canceled_at).not.toBeNull();
        expect(stored.event_ids).toHaveLength(2);
      } else {
        // Payment won first; cancel then found a paid link.
        expect(canceled.reason).toBeInstanceOf(InvalidStateError);
        expect(stored.event_ids).toHaveLength(1);
      }
      expect(queue.published.sort()).toEqual([...stored.event_ids].sort());
    }
  });

  it('ten concurrent cancels commit one transition and publish one event', async () => {
    const link = await storedOpenLink();
    const queue = recordingQueue();
    const deps = { links: linkRepository(), queue, now: () => new Date(), checkoutBase: base };
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        applyTransition(deps, load(link), (current, now) => cancel(current, now)),
      ),
    );
    expect(results.filter((result) => result.transition)).toHaveLength(1);
    for (const result of results) expect(result.link.status).toBe('canceled');
    const stored = (await linkRepository().get(link.id, 'test')) as PaymentLink;
    expect(stored.event_ids).toHaveLength(1);
    expect(queue.published).toEqual(stored.event_ids);
  });
});
