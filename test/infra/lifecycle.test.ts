import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';
import { functions } from '../../lib/routes.ts';
import {
  createTestApp,
  functionLogicalId as logicalIdOf,
  synthesize,
  wholeTemplate,
} from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize());
});

const functionLogicalId = (handler: string) => logicalIdOf(template, handler);

describe('the lifecycle infrastructure', () => {
  it('has the sparse timelines index (expiries among its lists) keyed by shard and time', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: tableSchema.gsi3.partitionKey, AttributeType: 'S' },
        { AttributeName: tableSchema.gsi3.sortKey, AttributeType: 'S' },
      ]),
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: tableSchema.gsi3.indexName,
          KeySchema: [
            { AttributeName: tableSchema.gsi3.partitionKey, KeyType: 'HASH' },
            { AttributeName: tableSchema.gsi3.sortKey, KeyType: 'RANGE' },
          ],
        }),
      ]),
    });
  });

  it('runs the expiry sweeper every minute, and lets it query the indexes and send events', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionLogicalId('expire-links'), 'Arn'] } })],
    });
    expect(functions['expire-links']).toMatchObject({ sendsEvents: true });
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement,
    );
    const query = statements.find((statement) => [statement.Action].flat().includes('dynamodb:Query'));
    expect(JSON.stringify(query.Resource)).toContain(`/index/${tableSchema.gsi3.indexName}`);
    expect(JSON.stringify(query.Resource)).not.toContain('index/*');
  });

  it('throttles the stage at 100 requests per second with bursts of 200 by default', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
    });
  });

  it('takes the stage throttle and the per-tenant rate limit from CDK context', () => {
    const { stack } = createTestApp({
      throttleRateLimit: '50',
      throttleBurstLimit: '80',
      rateLimitRequests: '30',
      rateLimitWindowSeconds: '10',
    });
    const custom = wholeTemplate(stack);
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 },
    });
    custom.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ RATE_LIMIT_REQUESTS: '30', RATE_LIMIT_WINDOW_SECONDS: '10' }),
      },
    });
  });

  it('refuses a throttle that is not a positive integer', () => {
    expect(() => createTestApp({ throttleRateLimit: 'fast' })).toThrow(/throttleRateLimit/);
  });
});
