import { linkRepository, sandboxMandateStore, subscriptionRepository } from '../../functions/dependencies.ts';
import type { Subscription } from '../../functions/domain/subscription.ts';
import { subscriptionCharges } from '../../functions/psp-dependencies.ts';
import { runDue } from '../../functions/use-cases/subscription-charges.ts';
import { httpRequest, NAVIGATION_HEADERS, type PageResponse } from './navigate.ts';
import type { TestStack } from './test-stack.ts';

/**
 * The renewals of the chaos run (docs/performance.md#under-faults): monthly subscription links paid on the sandbox,
 * then every subscription's clock advanced period after period by several test-clock requests at once
 * (`POST /v1/test-helpers/subscriptions/{id}/advance`, which runs the charge in the function, under the run's
 * faults: throttles and timeouts of the store, 5xx of the PSP, and charges whose answer is lost after the sandbox
 * made them). No period may be charged twice at the sandbox, and every charge the sandbox made must be a renewal
 * in our books (docs/subscriptions.md#charging-once).
 */
export interface RenewalReport {
  subscriptions: number;
  /** Test-clock requests sent (several at once per subscription and period). */
  advances: number;
  /** Charges the sandbox made, succeeded. */
  charged: number;
  /** Renewals our books recorded, succeeded. */
  renewals: number;
  /** Periods the sandbox charged more than once: 0 unless a guarantee broke. */
  doubled: number;
  /** Charges the sandbox made that our books do not hold: 0 unless a guarantee broke. */
  lost: number;
}

export interface RenewalTools {
  stack: TestStack;
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;
  page: (what: string, request: () => Promise<PageResponse>) => Promise<{ status: number }>;
  violations: string[];
  webhookUrl: string;
}

/** Test-clock requests sent at once for one subscription and period: they race for its charge. */
const ADVANCES_AT_ONCE = 3;

export async function renewUnderFaults(
  tools: RenewalTools,
  count: number,
  periods: number,
): Promise<RenewalReport> {
  const report: RenewalReport = {
    subscriptions: 0,
    advances: 0,
    charged: 0,
    renewals: 0,
    doubled: 0,
    lost: 0,
  };
  const started = (
    await Promise.all(Array.from({ length: count }, (_, index) => subscribe(tools, index)))
  ).filter((id): id is string => id !== undefined);
  report.subscriptions = started.length;
  for (let period = 0; period < periods; period++) {
    await Promise.all(
      started.flatMap((id) =>
        Array.from({ length: ADVANCES_AT_ONCE }, async () => {
          report.advances++;
          const answer = await tools.api('POST', `/v1/test-helpers/subscriptions/${id}/advance`);
          if (answer.status !== 200) tools.violations.push(`advance of ${id} gave up with ${answer.status}`);
        }),
      ),
    );
  }
  for (const id of started) await checkRenewals(tools, id, report);
  return report;
}

/**
 * A buyer opens a monthly subscription link and pays on the sandbox; the subscription's id once the payment is
 * recorded, or undefined when its notification was lost (the pending-payment sweeper's, 10 minutes on).
 */
async function subscribe(tools: RenewalTools, index: number): Promise<string | undefined> {
  const created = await tools.api('POST', '/v1/payment-links', {
    amount: { value: '9.90', currency: 'EUR' },
    description: `Chaos membership ${index}`,
    webhook_url: tools.webhookUrl,
    recurring: { interval: 'month', interval_count: 1 },
  });
  if (created.status !== 201) {
    tools.violations.push(`POST /v1/payment-links (subscription) gave up with ${created.status}`);
    return undefined;
  }
  const link = created.body as { id: string; checkout_url: string };
  await tools.page(`GET /checkout/${link.id} (subscription)`, () =>
    httpRequest(link.checkout_url, { headers: NAVIGATION_HEADERS }),
  );
  const session = (await linkRepository().get(link.id, 'test'))?.psp_session;
  if (!session) return undefined;
  await tools.page('POST /sandbox/checkout/{session}/pay (subscription)', () =>
    httpRequest(`${tools.stack.baseUrl}/sandbox/checkout/${session.id}/pay`, { method: 'POST' }),
  );
  const listed = await tools.api('GET', `/v1/subscriptions?link_id=${link.id}`);
  return (listed.body as { data?: { id: string }[] } | undefined)?.data?.[0]?.id;
}

/**
 * Settles what the faults left under way (an attempt whose answer was lost stays due, and is sent again under its
 * key, outside any function: no fault), then holds the sandbox's charges against our renewals.
 */
async function checkRenewals(tools: RenewalTools, id: string, report: RenewalReport): Promise<void> {
  await runDue(subscriptionCharges(), { id, mode: 'test' }, new Date());
  const subscription = (await subscriptionRepository().get(id, 'test')) as Subscription;
  const charges = (await sandboxMandateStore().chargesOf(subscription.mandate.reference)).filter(
    (charge) => charge.state === 'succeeded',
  );
  const renewals = (await subscriptionRepository().renewalsOf(id, 'test')).filter(
    (renewal) => renewal.status === 'succeeded',
  );
  report.charged += charges.length;
  report.renewals += renewals.length;
  const periods = new Map<number, number>();
  for (const charge of charges) periods.set(charge.period, (periods.get(charge.period) ?? 0) + 1);
  for (const [period, times] of periods) {
    if (times < 2) continue;
    report.doubled++;
    tools.violations.push(`${id}: period ${period} charged ${times} times at the sandbox`);
  }
  const recorded = new Set(renewals.map((renewal) => renewal.id));
  for (const charge of charges.filter((made) => !recorded.has(made.payment_id))) {
    report.lost++;
    tools.violations.push(`${id}: the sandbox charged ${charge.payment_id}, which our books do not hold`);
  }
  if (subscription.periods_paid !== 1 + renewals.length) {
    tools.violations.push(
      `${id}: ${subscription.periods_paid} periods paid, with ${renewals.length} renewals after the first`,
    );
  }
}
