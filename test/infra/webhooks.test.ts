import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../lib/app.ts';
import { functions, queueConsumers, schedules } from '../../lib/routes.ts';

let template: Template;
let validationReport: { pluginReports: { violations: unknown[] }[] };

beforeAll(() => {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-out-'));
  const { app, stack } = createApp({ outdir, context: { stage: 'prod' } });
  app.synth(); // throws on any unacknowledged cdk-nag finding
  template = Template.fromStack(stack);
  validationReport = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
});

/** The logical id of the Lambda function built for a handler file. */
function functionLogicalId(handler: string): string {
  const id = handler.replace(/(^|-)(\w)/g, (_m, _d, letter: string) => letter.toUpperCase());
  const match = Object.keys(template.findResources('AWS::Lambda::Function')).find((logicalId) =>
    logicalId.startsWith(`Functions${id}Function`),
  );
  if (!match) throw new Error(`No function for ${handler}`);
  return match;
}

function policyStatementsOf(handler: string) {
  const roleId =
    template.findResources('AWS::Lambda::Function')[functionLogicalId(handler)]?.Properties.Role[
      'Fn::GetAtt'
    ][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

describe('webhook delivery on AWS', () => {
  it('synthesises with no unacknowledged cdk-nag finding', () => {
    expect(validationReport.pluginReports.flatMap((report) => report.violations)).toEqual([]);
  });

  it('feeds the delivery function from the events queue with partial batch responses, bounded batches and concurrency', () => {
    const [consumer] = queueConsumers;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionLogicalId('deliver-webhook') },
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^EventQueueEvents'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: consumer?.batchSize,
      ScalingConfig: { MaximumConcurrency: consumer?.maxConcurrency },
    });
  });

  it('gives the events queue a visibility timeout of at least six times the delivery function timeout', () => {
    const timeout =
      template.findResources('AWS::Lambda::Function')[functionLogicalId('deliver-webhook')]?.Properties
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
    const statements = policyStatementsOf('deliver-webhook');
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
      expect(JSON.stringify(policyStatementsOf(handler))).not.toMatch(/EventQueueDeadLetters/);
    }
  });

  it('lets the outbox sweeper query the named indexes only, with no wildcard resource', () => {
    const dynamo = policyStatementsOf('outbox-sweeper').find((statement) =>
      [statement.Action].flat().includes('dynamodb:Query'),
    );
    const resources = JSON.stringify(dynamo?.Resource);
    expect(resources).toMatch(/\/index\/gsi2/);
    expect(resources).not.toContain('*');
  });

  it('runs the outbox sweeper every minute', () => {
    const sweeper = schedules.find((schedule) => schedule.handler === 'outbox-sweeper');
    expect(sweeper?.everyMinutes).toBe(1);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalId('outbox-sweeper'), 'Arn'] } })],
    });
  });

  it('tells every function where the dead-letter queue is', () => {
    for (const lambda of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(lambda.Properties.Environment.Variables).toHaveProperty('EVENTS_DEAD_LETTER_QUEUE_URL');
    }
  });
});
