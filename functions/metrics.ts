import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger, SERVICE_NAME } from './logger.ts';
import { once } from './once.ts';

/**
 * Every business metric the functions emit, in one table: its name is the key, and the CloudWatch dashboard
 * and alarms (lib/constructs/service-dashboard.ts) and docs/operations.md#metrics read it from here. Adding a
 * metric is one line here, its description in `METRIC_DESCRIPTIONS` (lib/constructs/service-dashboard.ts, which
 * does not compile without it: the functions' bundles carry no text they never show), and one `putMetrics` call
 * where the fact happens.
 *
 * `by` names the dimensions a metric is also broken down by; every metric is always emitted under the
 * `service` dimension alone too, so totals and alarms need no list of dimension values. Never a dimension
 * with many values (accounts, links): each combination is a billed custom metric.
 */
export const METRICS = {
  LinksCreated: { unit: 'Count', by: [] },
  CheckoutVisits: { unit: 'Count', by: [] },
  PaymentsSucceeded: { unit: 'Count', by: ['provider'] },
  PaymentsFailed: { unit: 'Count', by: ['provider'] },
  PspSessionFailures: { unit: 'Count', by: ['connection'] },
  Failovers: { unit: 'Count', by: ['connection'] },
  WebhookAttempts: { unit: 'Count', by: [] },
  WebhookSuccesses: { unit: 'Count', by: [] },
  WebhookFailures: { unit: 'Count', by: [] },
  WebhookDeliveryLatency: { unit: 'Milliseconds', by: [] },
  WebhookEndpointsDisabled: { unit: 'Count', by: [] },
  RateLimitRejections: { unit: 'Count', by: [] },
  RefundsStuck: { unit: 'Count', by: [] },
  PaymentAmountMismatches: { unit: 'Count', by: ['provider'] },
  OutcomesIgnored: { unit: 'Count', by: ['connection'] },
  SubscriptionsStarted: { unit: 'Count', by: ['provider'] },
  RenewalsSucceeded: { unit: 'Count', by: ['provider'] },
  RenewalsDeclined: { unit: 'Count', by: ['class'] },
  RenewalsUnknown: { unit: 'Count', by: [] },
} as const satisfies Record<string, MetricDefinition>;

export interface MetricDefinition {
  unit: 'Count' | 'Milliseconds';
  by: readonly string[];
}

export type MetricName = keyof typeof METRICS;
type DimensionOf<N extends MetricName> = (typeof METRICS)[N]['by'][number];

/**
 * The namespace comes from `POWERTOOLS_METRICS_NAMESPACE`, which the stack sets to its own name, so two stages in
 * one account never mix.
 */
const metrics = /* @__PURE__ */ once(() => new Metrics({ serviceName: SERVICE_NAME }));

/**
 * Emits the values as one Embedded Metric Format line on stdout, which CloudWatch turns into metrics: no API
 * call, nothing to flush. Written at once rather than buffered per invocation, so concurrent invocations (the
 * local stack runs them in one process) never mix dimensions. Never throws: a metric is not worth a payment.
 */
export function putMetrics<N extends MetricName>(
  /** A list gives a metric several values in the one line (several samples, e.g. one latency per webhook). */
  values: { [K in N]?: number | readonly number[] },
  ...[dimensions]: [DimensionOf<N>] extends [never] ? [] : [Record<DimensionOf<N>, string>]
): void {
  try {
    const emitter = metrics();
    for (const [name, value] of Object.entries(values) as [MetricName, number | number[] | undefined][]) {
      for (const sample of value === undefined ? [] : [value].flat()) {
        emitter.addMetric(name, METRICS[name].unit, sample);
      }
    }
    if (dimensions) {
      emitter.addDimensions(dimensions);
      emitter.addDimensions({}); // the `service`-only set: the total across the breakdown
    }
    emitter.publishStoredMetrics();
  } catch (error) {
    logger.warn('Metrics not emitted', { metrics: Object.keys(values), error });
  }
}
