import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { schedules } from '../../lib/routes.ts';
import { functionLogicalId, synthesize } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize());
});

describe('the books and personal data on AWS', () => {
  it('need no index of their own: the table keeps its three indexes, so the deploy needs no migration step', () => {
    const indexes = Object.values(template.findResources('AWS::DynamoDB::GlobalTable')).flatMap(
      (table) =>
        (table as { Properties: { GlobalSecondaryIndexes: { IndexName: string }[] } }).Properties
          .GlobalSecondaryIndexes,
    );
    expect(indexes.map((index) => index.IndexName).sort()).toEqual(['listings', 'outbox', 'timelines']);
  });

  it('run the retention sweep every hour', () => {
    const sweep = schedules.find((schedule) => schedule.handler === 'erase-expired-buyer-details');
    expect(sweep?.everyMinutes).toBe(60);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 hour)',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [functionLogicalId(template, 'erase-expired-buyer-details'), 'Arn'] },
        }),
      ],
    });
  });
});
