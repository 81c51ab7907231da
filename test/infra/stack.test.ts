import { CfnResource } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { configSettingNames } from '../../functions/config.ts';
import { functions, type HandlerName, timeoutSecondsOf } from '../../lib/routes.ts';
import {
  CLOUDFORMATION_VALIDATION,
  createTestApp,
  functionLogicalId,
  functionsOf,
  LARGEST,
  migrationStepThree,
  synthesize,
} from '../support/synth.ts';

let template: Template;
let violations: unknown[];

beforeAll(() => {
  ({ template, violations } = synthesize());
});

describe('the CDK stack', () => {
  it('passes cdk-nag AwsSolutions with no unacknowledged finding', () => {
    expect(violations).toEqual([]);
  });

  it('passes cdk-nag too when deployed to a concrete account and region, as `cdk deploy` does', () => {
    const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
    Object.assign(process.env, { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'eu-west-1' });
    try {
      expect(() => synthesize()).not.toThrow();
    } finally {
      for (const [name, value] of [
        ['CDK_DEFAULT_ACCOUNT', saved.account],
        ['CDK_DEFAULT_REGION', saved.region],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('fails synth when a resource breaks an AwsSolutions rule (the check is live)', () => {
    const { app, stack } = createTestApp();
    new Queue(stack, 'CarelessQueue', { encryption: QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
  });

  // With every opt-in on, the app holds every resource any deployment synthesizes.
  it("passes CloudFormation's own schema validation with every opt-in on", () => {
    expect(() => synthesize({ ...LARGEST, ...CLOUDFORMATION_VALIDATION })).not.toThrow();
  });

  it('fails that validation on a property CloudFormation does not know (the check is live)', () => {
    const { app, stack } = createTestApp(CLOUDFORMATION_VALIDATION);
    new CfnResource(stack, 'MistypedQueue', {
      type: 'AWS::SQS::Queue',
      properties: { VisibilityTimeOut: 30 },
    });
    expect(() => app.synth()).toThrow(/VisibilityTimeOut.*CloudFormation Validate/);
  });

  it('runs every function on Node.js 24, arm64, as a minified ESM bundle whose source map Node does not parse at start', () => {
    const lambdas = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(lambdas)).toHaveLength(Object.keys(functions).length);
    for (const lambda of Object.values(lambdas)) {
      expect(lambda.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        // Lambda's INFO platform lines (start, report) cost more log bytes than ours: only its warnings are kept.
        LoggingConfig: { LogFormat: 'JSON', SystemLogLevel: 'WARN' },
      });
      // The logger maps logged stacks itself (functions/source-mapped-stack.ts); Node's own source-map support
      // would parse the whole map at every cold start.
      expect(JSON.stringify(lambda.Properties.Environment?.Variables ?? {})).not.toContain('source-maps');
    }
  });

  it('deploys each function with the timeout the route table derives from its outbound calls', () => {
    for (const handler of Object.keys(functions) as HandlerName[]) {
      const lambda = template.findResources('AWS::Lambda::Function')[functionLogicalId(template, handler)];
      expect({ handler, timeout: lambda?.Properties.Timeout }).toEqual({
        handler,
        timeout: timeoutSecondsOf(handler),
      });
    }
  });

  it('gives the functions only settings that functions/config.ts reads, besides Powertools’ own', () => {
    const read = new Set(configSettingNames());
    // Step 3 of the index migration sets both index settings (lib/constructs/links-table.ts).
    for (const synthesized of [template, migrationStepThree().template]) {
      const given = functionsOf(synthesized).flatMap((fn) =>
        Object.keys(fn.Properties.Environment?.Variables ?? {}),
      );
      expect(given).toContain('TABLE_NAME');
      const unread = given.filter((name) => !read.has(name) && !name.startsWith('POWERTOOLS_'));
      expect(new Set(unread)).toEqual(new Set());
    }
  });

  it('keeps the dead-letter queue (failed events) when a protected stage is deleted', () => {
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    const deadLetters = queues.filter((queue) => !queue.Properties.RedrivePolicy);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]?.DeletionPolicy).toBe('Retain');
  });

  it('has an encrypted, TLS-only event queue with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: Match.anyValue() },
    });
    const queuePolicies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));
    expect(queuePolicies.length).toBe(2);
    for (const policy of queuePolicies) {
      expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('outputs BaseUrl, CheckoutBase, TableName and SigningKeyArn', () => {
    template.hasOutput('TableName', {});
    template.hasOutput('SigningKeyArn', {});
    template.hasOutput('BaseUrl', {});
    template.hasOutput('CheckoutBase', {});
  });
});
