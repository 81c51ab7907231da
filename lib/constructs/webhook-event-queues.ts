import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENTS_MAX_RECEIVE_COUNT } from '../routes.ts';

/**
 * The queue that hands webhook events from transitions to the delivery function, with its dead-letter queue.
 * Both are encrypted and refuse non-TLS access.
 */
export class WebhookEventQueues extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: { visibilityTimeout: Duration; protectData: boolean }) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      // The failed events an operator must still look at survive a stack deletion outside dev stages.
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.queue = new Queue(this, 'Events', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: props.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: EVENTS_MAX_RECEIVE_COUNT },
    });
  }
}
