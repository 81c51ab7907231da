import { Metrics } from '@aws-lambda-powertools/metrics';
import { logger, SERVICE_NAME } from './logger.ts';
import { once } from './once.ts';

/**
 * Every business metric the functions emit, in one table: its name is the key, and the CloudWatch dashboard
 * and alarms (lib/constructs/service-dashboard.ts) and docs/operations.md#metrics read it from here. Adding a
 * metric is one line here and one `putMetrics` call where the fact happens.
 *
 * `by` names the dimensions a metric is also broken down by; every metric is always emitted under the
 * `service` dimension alone too, so totals and alarms need no list of dimension values. Never a dimension
 * with many values (accounts, links): each combination is a billed custom metric.
 */
export const METRICS = {
  LinksCreated: { unit: 'Count', by: [], description: 'payment links created (an idempotent replay is not)' },
  CheckoutVisits: {
    unit: 'Count',
    by: [],
    description: 'buyers opening the checkout page of an open link (link previews are not counted)',
  },
  PaymentsSucceeded: { unit: 'Count', by: ['provider'], description: 'payments confirmed by the PSP' },
  PaymentsFailed: {
    unit: 'Count',
    by: ['provider'],
    description: 'payment attempts that failed at the PSP, a checkout session it could not create included',
  },
  PspSessionFailures: {
    unit: 'Count',
    by: ['connection'],
    description:
      'checkout sessions a PSP connection could not open (timeout, 5xx, refusal): each is a failover',
  },
  Failovers: {
    unit: 'Count',
    by: ['connection'],
    description: 'checkout sessions opened at a connection after an earlier one of the same request failed',
  },
  WebhookAttempts: { unit: 'Count', by: [], description: 'webhook POSTs made (each retry is one)' },
  WebhookSuccesses: { unit: 'Count', by: [], description: 'webhook POSTs answered 2xx' },
  WebhookFailures: {
    unit: 'Count',
    by: [],
    description: 'webhook POSTs that failed (non-2xx, timeout, refused target), whether retried or not',
  },
  WebhookDeliveryLatency: {
    unit: 'Milliseconds',
    by: [],
    description: "from the event's creation to the POST that delivered it (retries included)",
  },
  WebhookEndpointsDisabled: {
    unit: 'Count',
    by: [],
    description: 'webhook endpoints disabled after failing every attempt for 5 days',
  },
  RateLimitRejections: { unit: 'Count', by: [], description: 'API requests refused with 429 rate_limited' },
  RefundsStuck: {
    unit: 'Count',
    by: [],
    description:
      'checks of a pending refund its PSP never acknowledged, past the time it can safely be asked for again: an operator settles it at the PSP',
  },
} as const satisfies Record<string, MetricDefinition>;

export interface MetricDefinition {
  unit: 'Count' | 'Milliseconds';
  by: readonly string[];
  /** What one unit of it is, for the docs and the dashboard. */
  description: string;
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
