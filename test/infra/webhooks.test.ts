import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';
import { functions, queueConsumers, schedules } from '../../lib/routes.ts';
import { functionLogicalId as logicalIdOf, policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;
let violations: unknown[];

beforeAll(() => {
  ({ template, violations } = synthesize());
});

const functionLogicalIdOf = (handler: string) => logicalIdOf(template, handler);
const policyStatements = (handler: string) => policyStatementsOf(template, handler);

describe('webhook delivery on AWS', () => {
  it('synthesises with no unacknowledged cdk-nag finding', () => {
    expect(violations).toEqual([]);
  });

  it('feeds the delivery function from the events queue with partial batch responses, bounded batches and concurrency', () => {
    const [consumer] = queueConsumers;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionLogicalIdOf('deliver-webhook') },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventQueueEvents'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: consumer?.batchSize,
      ScalingConfig: { MaximumConcurrency: consumer?.maxConcurrency },
    });
  });

  it('takes the delivery concurrency from the webhookConcurrency context, within what SQS accepts', () => {
    const { template: scaled } = synthesize({ webhookConcurrency: '200' });
    scaled.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(scaled, 'deliver-webhook') },
      ScalingConfig: { MaximumConcurrency: 200 },
    });
    expect(() => synthesize({ webhookConcurrency: '1' })).toThrow(/webhookConcurrency must be 2\.\.1000/);
  });

  it('gives the events queue a visibility timeout of at least six times the delivery function timeout', () => {
    const timeout =
      template.findResources('AWS::Lambda::Function')[functionLogicalIdOf('deliver-webhook')]?.Properties
        .Timeout;
    const queues = template.findResources('AWS::SQS::Queue');
    const events = Object.entries(queues).find(([id]) => id.startsWith('EventQueueEvents'))?.[1];
    expect(events?.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  it('alarms on anything in the dead-letter queue and on old messages in the events queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventQueueDeadLetters'), 'QueueName'] },
        },
      ],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      ComparisonOperator: 'GreaterThanThreshold',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventQueueEvents'), 'QueueName'] },
        },
      ],
    });
  });

  it('lets the delivery function send to the events queue and its dead-letter queue, and consume the events queue only', () => {
    const statements = policyStatements('deliver-webhook');
    const sqsStatements = statements.filter((statement) =>
      [statement.Action].flat().some((action: string) => action.startsWith('sqs:')),
    );
    const resources = sqsStatements.map((statement) => JSON.stringify(statement.Resource));
    expect(resources.some((resource) => /EventQueueDeadLetters/.test(resource))).toBe(true);
    const consume = sqsStatements.find((statement) =>
      [statement.Action].flat().includes('sqs:ReceiveMessage'),
    );
    expect(JSON.stringify(consume?.Resource)).toMatch(/EventQueueEvents/);
    expect(JSON.stringify(consume?.Resource)).not.toMatch(/DeadLetters/);
    for (const statement of sqsStatements) expect(JSON.stringify(statement.Action)).not.toContain('sqs:*');
  });

  it('gives no other function the dead-letter queue', () => {
    for (const handler of Object.keys(functions).filter((name) => name !== 'deliver-webhook')) {
      expect(JSON.stringify(policyStatements(handler))).not.toMatch(/EventQueueDeadLetters/);
    }
  });

  it('lets the outbox sweeper query the named indexes only, with no wildcard resource', () => {
    const dynamo = policyStatements('outbox-sweeper').find((statement) =>
      [statement.Action].flat().includes('dynamodb:Query'),
    );
    const resources = JSON.stringify(dynamo?.Resource);
    expect(resources).toContain(`/index/${tableSchema.gsi2.indexName}`);
    expect(resources).not.toContain('*');
  });

  it('alarms when a background function fails and when the API answers 5xx', () => {
    for (const handler of ['outbox-sweeper', 'expire-links', 'deliver-webhook']) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: 'Errors',
        Namespace: 'AWS/Lambda',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionLogicalIdOf(handler) } }],
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5xx',
      Namespace: 'AWS/ApiGateway',
    });
  });

  it('runs the outbox sweeper every minute', () => {
    const sweeper = schedules.find((schedule) => schedule.handler === 'outbox-sweeper');
    expect(sweeper?.everyMinutes).toBe(1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalIdOf('outbox-sweeper'), 'Arn'] } })],
    });
  });

  it('tells every function where the dead-letter queue is', () => {
    for (const lambda of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(lambda.Properties.Environment.Variables).toHaveProperty('EVENTS_DEAD_LETTER_QUEUE_URL');
    }
  });
});
