import { linkRepository, paymentRepository } from '../../functions/dependencies.ts';
import { type Browser, buyersAt } from './buyers.ts';
import { httpRequest, type PageResponse } from './navigate.ts';
import type { TestStack } from './test-stack.ts';

/**
 * The places race of the chaos run (docs/performance.md#under-faults): reusable links with `max_payments` (1 with
 * 16 buyers, 3 with 12, in turn) opened by all their buyers at once, each from its own address, under the run's
 * faults; every buyer given a session pays on it. No more buyers may get a payable session, nor pay, than the
 * link has places, and no payment may be a duplicate (docs/orchestration.md#places).
 */
export interface RaceReport {
  links: number;
  buyers: number;
  /** Buyers sent to a session. */
  served: number;
  /** Payments the links recorded. */
  paid: number;
  /** Buyers given a session beyond `max_payments`, over all links: 0 unless a guarantee broke. */
  oversold: number;
}

/** What the chaos run gives the race: how it creates a link and sends a page request, retried as it retries. */
export interface RaceTools {
  stack: TestStack;
  createLink: (body: Record<string, unknown>) => Promise<{ id: string; checkout_url: string } | undefined>;
  page: (what: string, request: () => Promise<PageResponse>) => Promise<{ status: number }>;
  violations: string[];
  /** Subnets of 127.0.0.0/8 the race may use (one per link), so that each link's buyers have their own addresses. */
  firstSubnet: number;
}

const SHAPES = [
  { maxPayments: 1, buyers: 16 },
  { maxPayments: 3, buyers: 12 },
];

/**
 * Races `links` links; `check` counts what the links recorded and notes a payment beyond `max_payments` or a
 * duplicate, once the run has waited for what the faults delayed.
 */
export async function raceForPlaces(
  tools: RaceTools,
  links: number,
): Promise<{ report: RaceReport; ids: string[]; check: () => Promise<void> }> {
  const report: RaceReport = { links: 0, buyers: 0, served: 0, paid: 0, oversold: 0 };
  const ids: string[] = [];
  const caps = new Map<string, number>();
  // The links' races at once, each its own buyers' addresses: they meet the faults together.
  const race = async (index: number) => {
    const { maxPayments, buyers: count } = SHAPES[index % SHAPES.length] as (typeof SHAPES)[number];
    const link = await tools.createLink({ reusable: true, max_payments: maxPayments });
    if (!link) return;
    ids.push(link.id);
    caps.set(link.id, maxPayments);
    report.links++;
    report.buyers += count;
    const buyers = buyersAt(tools.firstSubnet + index, count);
    const pages = await Promise.all(
      buyers.map((buyer) =>
        tools.page(`GET /checkout/${link.id} (race)`, () => buyer.visit(link.checkout_url)),
      ),
    );
    const served = buyers.filter((buyer, at) => pages[at]?.status === 200 && buyer.payment);
    report.served += served.length;
    if (served.length > maxPayments) {
      report.oversold += served.length - maxPayments;
      tools.violations.push(
        `${served.length} buyers got a session of ${link.id}, max_payments ${maxPayments}`,
      );
    }
    await Promise.all(served.map((buyer) => payOn(tools, link.id, buyer)));
  };
  await Promise.all(Array.from({ length: links }, (_, index) => race(index)));
  const check = async () => {
    for (const [id, cap] of caps) report.paid += await checkPaid(tools, id, cap);
  };
  return { report, ids, check };
}

async function payOn(tools: RaceTools, linkId: string, buyer: Browser): Promise<void> {
  const payment = await paymentRepository().get(linkId, 'test', buyer.payment ?? '');
  if (!payment?.session_id) return;
  await tools.page(`POST /sandbox/checkout/{session}/pay (race)`, () =>
    httpRequest(`${tools.stack.baseUrl}/sandbox/checkout/${payment.session_id}/pay`, { method: 'POST' }),
  );
}

/** The payments the link recorded, none beyond `max_payments` and none reported as a duplicate. */
async function checkPaid(tools: RaceTools, linkId: string, maxPayments: number): Promise<number> {
  const link = await linkRepository().get(linkId, 'test');
  const paid = Object.keys(link?.paid_payments ?? {}).length;
  if (paid > maxPayments)
    tools.violations.push(`${linkId} took ${paid} payments, max_payments ${maxPayments}`);
  const duplicates = Object.keys(link?.paid_payments ?? {}).filter((id) =>
    link?.reported_payments.includes(id),
  );
  if (duplicates.length > 0)
    tools.violations.push(`${linkId} took duplicate payments: ${duplicates.join(', ')}`);
  return paid;
}
