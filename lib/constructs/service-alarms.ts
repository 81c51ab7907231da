import { Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { functions, type HandlerName, queueConsumers, schedules } from '../routes.ts';
import { type ServiceFunctions, toConstructId } from './service-functions.ts';

/**
 * The alarms nobody would otherwise notice: a failing background function (the outbox sweeper, which the
 * "no lost webhook" guarantee rests on, the expiry sweeper, the PSP sweeper, webhook delivery), a keyless function
 * throttled at its reserved concurrency, and server errors of the API.
 * The queue alarms live with webhook delivery (webhook-delivery.ts), those on business metrics with the dashboard
 * (service-dashboard.ts); all of them notify the topic of alarm-notifications.ts when one is configured.
 */
export class ServiceAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: { functions: ServiceFunctions; api: HttpApi }) {
    super(scope, id);
    const background = [...new Set([...schedules, ...queueConsumers].map((entry) => entry.handler))];
    for (const handler of background) {
      this.alarms.push(
        new Alarm(this, `${toConstructId(handler)}Errors`, {
          alarmDescription: `The ${handler} function is failing (errors or timeouts).`,
          metric: props.functions
            .get(handler)
            .metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    // A reservation is also a ceiling: over it, buyers or PSPs get errors until the flood ends or it is raised.
    for (const handler of Object.keys(functions) as HandlerName[]) {
      const reserved = props.functions.reservedConcurrency(handler);
      if (reserved === undefined) continue;
      this.alarms.push(
        new Alarm(this, `${toConstructId(handler)}Throttles`, {
          alarmDescription: `The ${handler} function ran at its reserved concurrency (${reserved}) and was throttled: raise its CDK context figure if this is real traffic (docs/operations.md#reserved-concurrency).`,
          metric: props.functions
            .get(handler)
            .metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    this.alarms.push(
      new Alarm(this, 'ApiServerErrors', {
        alarmDescription: 'The API answers 5xx: a function fails or API Gateway cannot reach it.',
        metric: props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 5,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}
