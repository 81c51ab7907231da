import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { newId } from '../../functions/domain/ids.ts';
import { newPaymentId, type Payment } from '../../functions/domain/payment.ts';
import { newPaymentLink, type PaymentLink } from '../../functions/domain/payment-link.ts';
import type { IssuedApiKey } from '../../functions/use-cases/api-keys.ts';
import { createLink, storedLink } from '../support/checkout-helpers.ts';
import { httpRequest, NAVIGATION_HEADERS } from '../support/navigate.ts';
import { startTestStack, type TestStack } from '../support/test-stack.ts';

/**
 * A reusable link's checkout visit reads a bounded number of the link's items, however many payments it took
 * (docs/data-model.md#payments-in-creation-order); a link created before payments were in creation order reads
 * them all, as it did.
 */
let stack: TestStack;
let key: IssuedApiKey;

beforeAll(async () => {
  stack = await startTestStack();
  key = await stack.issueKey('manyvisits', 'test');
});
afterAll(() => stack.stop());

const DAY_MS = 86_400_000;
const OLD_PAYMENTS = 300;

/** A declined attempt of `link`, made `at` (a buyer who tried days ago). */
function declined(link: PaymentLink, id: string, at: Date): Payment {
  const when = at.toISOString();
  return {
    id,
    link_id: link.id,
    account: link.account,
    mode: link.mode,
    connection_id: 'pc_sandbox',
    provider: 'sandbox',
    status: 'failed',
    amount: { value: '10.50', currency: 'EUR' },
    provider_reference: null,
    failure: { code: 'declined', class: 'soft', message: 'Declined.' },
    session_id: `sbcs_${newId('pay').slice(4)}`,
    session_expires_at: new Date(at.getTime() + 3_600_000).toISOString(),
    next_check_at: null,
    checks: 0,
    opened_by: 'client-of-long-ago',
    created_at: when,
    updated_at: when,
    version: 2,
  };
}

/** An item's partition key, marshalled (the client's own middleware) or not (the document client's). */
const pkOf = (item: Record<string, unknown>) => {
  const pk = item.pk as { S?: string } | string | undefined;
  return typeof pk === 'string' ? pk : pk?.S;
};

/** Items of the link's partition (the link, its payments) that a Query or GetItem returned while `act` ran. */
async function itemsReadOf(linkId: string, act: () => Promise<unknown>): Promise<number> {
  let items = 0;
  const name = `count-reads-of-${linkId}`;
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const output = result.output as { Items?: Record<string, unknown>[]; Item?: Record<string, unknown> };
      const returned = output.Items ?? (output.Item ? [output.Item] : []);
      if (/^(Query|Get)/.test(String(context.commandName))) {
        items += returned.filter((item) => pkOf(item) === `LINK#${linkId}`).length;
      }
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    await act();
  } finally {
    documentClient().middlewareStack.remove(name);
  }
  return items;
}

const visit = (url: string) => httpRequest(url, { headers: NAVIGATION_HEADERS });

describe("a reusable link's checkout visit", () => {
  it('reads at most 10 of its items with hundreds of payments, and still opens the buyer a session', async () => {
    const link = await createLink(stack, key.api_key, { reusable: true });
    const stored = await storedLink(link.id);
    expect(stored.payments_in_order).toBe(true);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS);
    for (let index = 0; index < OLD_PAYMENTS; index++) {
      const at = new Date(twoDaysAgo.getTime() + index * 1000);
      await paymentRepository().save(declined(stored, newPaymentId(at), at));
    }
    let page: Awaited<ReturnType<typeof visit>> | undefined;
    const read = await itemsReadOf(link.id, async () => {
      page = await visit(link.checkout_url);
    });
    expect(page?.status).toBe(200);
    expect(page?.text).toContain('http-equiv="refresh"');
    // The link (read once per round) and nothing of its 300 payments: they are older than any session.
    expect(read).toBeLessThanOrEqual(10);
    expect((await paymentRepository().listOfLink(link.id, 'test')).length).toBe(OLD_PAYMENTS + 1);
  });

  it('reads every payment of a link from before payments were in creation order, which keeps working', async () => {
    const created = newPaymentLink(
      { account: 'manyvisits', mode: 'test' },
      { amount: { value: '10.50', currency: 'EUR' }, reusable: true },
      new Date(),
    );
    const older: PaymentLink = { ...created, payments_in_order: false };
    await linkRepository().create(older);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS);
    for (let index = 0; index < 50; index++) {
      await paymentRepository().save(declined(older, newId('pay'), twoDaysAgo));
    }
    let page: Awaited<ReturnType<typeof visit>> | undefined;
    const read = await itemsReadOf(older.id, async () => {
      page = await visit(`${stack.checkoutBase}/${older.id}`);
    });
    expect(page?.status).toBe(200);
    expect(read).toBeGreaterThanOrEqual(50);
  });
});
