import { Duration, Stack } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../functions/logger.ts';
import { METRICS, type MetricName } from '../../functions/metrics.ts';

/** What one unit of each metric is, shown on the dashboard (functions/metrics.ts has the metrics themselves). */
export const METRIC_DESCRIPTIONS: Record<MetricName, string> = {
  LinksCreated: 'payment links created (an idempotent replay is not)',
  CheckoutVisits: 'buyers opening the checkout page of an open link (link previews are not counted)',
  PaymentsSucceeded: 'payments confirmed by the PSP',
  PaymentsFailed: 'payment attempts that failed at the PSP, a checkout session it could not create included',
  PspSessionFailures:
    'checkout sessions a PSP connection could not open (timeout, 5xx, refusal): each is a failover',
  Failovers: 'checkout sessions opened at a connection after an earlier one of the same request failed',
  WebhookAttempts: 'webhook POSTs made (each retry is one)',
  WebhookSuccesses: 'webhook POSTs answered 2xx',
  WebhookFailures: 'webhook POSTs that failed (non-2xx, timeout, refused target), whether retried or not',
  WebhookDeliveryLatency: "from the event's creation to the POST that delivered it (retries included)",
  WebhookEndpointsDisabled: 'webhook endpoints disabled after failing every attempt for 5 days',
  RateLimitRejections: 'API requests refused with 429 rate_limited',
  RefundsStuck:
    'checks of a pending refund its PSP never acknowledged, past the time it can safely be asked for again: an operator settles it at the PSP',
  PaymentAmountMismatches:
    'successes a PSP reported at another amount or currency than their payment: not taken as paid, voided or refunded where the PSP allows',
  OutcomesIgnored:
    "unpaid session outcomes learning ignored: a client's second and later at one connection within an hour",
  SubscriptionsStarted: 'subscriptions started by a paid subscription link (docs/subscriptions.md)',
  RenewalsSucceeded:
    "subscription periods charged to the buyer's mandate (retries and update links included)",
  RenewalsDeclined:
    'renewal charges the PSP declined, by decline class (soft, hard, authentication_required)',
  RenewalsUnknown:
    "renewal charges whose outcome is still unknown past their PSP's idempotency window: an operator settles them at the PSP",
};

const PERIOD = Duration.minutes(5);

/** The CloudWatch namespace of a stack's metrics: its own name, so stages in one account never mix. */
export const metricsNamespace = (scope: Construct) => Stack.of(scope).stackName;

/** One of our metrics over all its dimension values (the `service`-only series every metric has). */
export function serviceMetric(scope: Construct, name: MetricName, statistic = 'Sum'): Metric {
  return new Metric({
    namespace: metricsNamespace(scope),
    metricName: name,
    dimensionsMap: { service: SERVICE_NAME },
    statistic,
    period: PERIOD,
  });
}

/**
 * The service's CloudWatch dashboard: one graph per metric of functions/metrics.ts, in the table's order (a
 * metric added there appears here by itself), each `by` dimension drawn as one line per value, latencies as
 * p50/p90/p99; then the state of every alarm of the stack. The business alarms on these metrics are here too.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const namespace = metricsNamespace(this);
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: namespace,
      defaultInterval: Duration.hours(24),
    });
    this.dashboard.addWidgets(
      new TextWidget({
        markdown: `# ${namespace}\nBusiness metrics (namespace \`${namespace}\`), then alarms. What each one counts: docs/operations.md#metrics.`,
        width: 24,
        height: 2,
      }),
    );
    this.dashboard.addWidgets(
      ...(Object.keys(METRICS) as MetricName[]).map((name) => this.graph(namespace, name)),
    );

    const failed = serviceMetric(this, 'PaymentsFailed');
    const succeeded = serviceMetric(this, 'PaymentsSucceeded');
    this.alarms = [
      new Alarm(this, 'PaymentFailureRate', {
        alarmDescription:
          'More than half of at least 10 payment attempts in 5 minutes failed at the PSP: a PSP outage or rejected credentials (PaymentsFailed by provider on the dashboard says which).',
        metric: new MathExpression({
          expression: 'IF(failed + succeeded >= 10, 100 * failed / (failed + succeeded), 0)',
          usingMetrics: { failed, succeeded },
          label: 'Failed payments (%)',
          period: PERIOD,
        }),
        threshold: 50,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'StuckRefunds', {
        alarmDescription:
          'A pending refund that its PSP never acknowledged can no longer be asked for again safely: find it by the error "A refund the PSP never acknowledged" in the check-pending-at-psps log and settle it at the PSP.',
        metric: serviceMetric(this, 'RefundsStuck', 'Sum'),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'AmountMismatches', {
        alarmDescription:
          'A PSP reported a payment at another amount or currency than the payment was for: the link was not paid by it. Find the error "A PSP reported another amount" in the logs of the functions that record payments (psp-notifications, check-pending-at-psps, checkout-page, cancel and expiry): link, payment, connection, both amounts and given_back; refund at the PSP what was not given back, and check the PSP account for changes not made through us (docs/operations.md#alarms).',
        metric: serviceMetric(this, 'PaymentAmountMismatches', 'Sum'),
        threshold: 0,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'WebhookLatency', {
        alarmDescription:
          'Half the webhooks delivered in the last 15 minutes waited over 5 minutes after their event: delivery is falling behind (queue, function or sweeper).',
        metric: serviceMetric(this, 'WebhookDeliveryLatency', 'p50'),
        threshold: Duration.minutes(5).toMilliseconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
  }

  /** Shows every alarm of the stack (call once all are built). */
  addAlarmStatus(alarms: Alarm[]) {
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms, width: 24, height: 4 }));
  }

  private graph(namespace: string, name: MetricName): GraphWidget {
    const { unit, by } = METRICS[name];
    const title = `${name}: ${METRIC_DESCRIPTIONS[name]}`;
    if (unit === 'Milliseconds') {
      return new GraphWidget({
        title,
        left: ['p50', 'p90', 'p99'].map((statistic) =>
          serviceMetric(this, name, statistic).with({ label: statistic }),
        ),
        width: 8,
      });
    }
    const total: IMetric = serviceMetric(this, name).with({ label: 'all' });
    const breakdown = by.map(
      (dimension: string) =>
        new MathExpression({
          expression: `SEARCH('{${namespace},service,${dimension}} MetricName="${name}"', 'Sum', ${PERIOD.toSeconds()})`,
          usingMetrics: {},
          label: `by ${dimension}`,
          period: PERIOD,
        }),
    );
    return new GraphWidget({ title, left: [total, ...breakdown], width: 8 });
  }
}
