import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { inParallel } from './in-parallel.ts';
import { httpRequest, NAVIGATION_HEADERS, type PageResponse } from './navigate.ts';
import type { TestStack } from './test-stack.ts';

/** The chaos run's payments (test/support/chaos.ts): buyers pay open links through the checkout, under the faults. */
export interface PaymentTools {
  stack: TestStack;
  page: (what: string, request: () => Promise<PageResponse>) => Promise<{ status: number }>;
  violations: string[];
  /** Buyers at once. */
  concurrency: number;
}

/**
 * Each link's buyer opens its checkout page, which opens a session at one of the connections, and pays there. A
 * link the sandbox could not tell of its payment is still open with the payment pending, which the sweeper asks the
 * PSP about 10 minutes on (the safety net a PSP's own retries would make unneeded): `awaitingSweeper`, not `paid`.
 * No payment may be lost: a paid link that is neither is a violation.
 */
export async function payUnderFaults(
  tools: PaymentTools,
  links: readonly { id: string; checkout_url: string }[],
): Promise<{ paid: Set<string>; awaitingSweeper: string[] }> {
  const { stack, page, violations, concurrency } = tools;
  const paid = new Set<string>();
  const awaitingSweeper: string[] = [];
  await inParallel(links, concurrency, async (link) => {
    const checkout = await page(`GET /checkout/${link.id}`, () =>
      httpRequest(link.checkout_url, { headers: NAVIGATION_HEADERS }),
    );
    if (checkout.status >= 400) {
      violations.push(`GET /checkout/${link.id} gave up with ${checkout.status}`);
      return;
    }
    const session = (await linkRepository().get(link.id, 'test'))?.psp_session;
    if (!session) {
      violations.push(`GET /checkout/${link.id} answered ${checkout.status} but no session is stored`);
      return;
    }
    const pay = await page(`POST /sandbox/checkout/{session}/pay`, () =>
      httpRequest(`${stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' }),
    );
    if (pay.status >= 400) violations.push(`paying ${link.id} gave up with ${pay.status}`);
    else paid.add(link.id);
  });
  await inParallel([...paid], concurrency, async (id) => {
    const link = await linkRepository().get(id, 'test');
    if (link?.status === 'paid') return;
    const payments = await paymentRepository().listOfLink(id, 'test');
    if (payments.some((payment) => payment.status === 'pending' && payment.next_check_at)) {
      awaitingSweeper.push(id);
      paid.delete(id);
    } else violations.push(`link ${id} was paid at the PSP but is ${link?.status}, with no check due`);
  });
  return { paid, awaitingSweeper };
}
