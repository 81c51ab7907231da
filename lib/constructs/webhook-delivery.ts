import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { queueConsumers } from '../routes.ts';
import type { ServiceFunctions } from './service-functions.ts';
import type { WebhookEventQueues } from './webhook-event-queues.ts';

export interface WebhookDeliveryProps {
  events: WebhookEventQueues;
  functions: ServiceFunctions;
  /** Alarm when the oldest message waits longer than this (a retry's queue delay is at most 15 minutes). */
  maxMessageAge?: Duration;
  /** Each consumer's maximum concurrency, instead of the route table's (`lib/routes.ts`). */
  maxConcurrency?: number;
}

/**
 * Webhook delivery on AWS: every queue consumer of the route table on the events queue through an SQS event
 * source (partial batch responses, bounded batch and concurrency), and the alarms an operator needs: anything
 * in the dead-letter queue, and messages waiting too long (delivery stalled).
 */
export class WebhookDelivery extends Construct {
  readonly deadLetterAlarm: Alarm;
  readonly messageAgeAlarm: Alarm;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    for (const consumer of queueConsumers) {
      props.functions.get(consumer.handler).addEventSource(
        new SqsEventSource(props.events.queue, {
          batchSize: consumer.batchSize,
          maxConcurrency: props.maxConcurrency ?? consumer.maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );
    }
    this.deadLetterAlarm = new Alarm(this, 'DeadLettersAlarm', {
      alarmDescription:
        'Webhook events in the dead-letter queue: retries exhausted, or messages the delivery function could not process.',
      metric: props.events.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.messageAgeAlarm = new Alarm(this, 'OldestMessageAlarm', {
      alarmDescription: 'Webhook delivery is falling behind: the oldest event message waits too long.',
      metric: props.events.queue.metricApproximateAgeOfOldestMessage({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: (props.maxMessageAge ?? Duration.minutes(30)).toSeconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
