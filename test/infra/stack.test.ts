import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  currentIndexNames,
  DESIGN_PEAK,
  tableIndexes,
  tableSchema,
} from '../../functions/adapters/dynamodb/table-schema.ts';
import { configSettingNames } from '../../functions/config.ts';
import { createApp } from '../../lib/app.ts';
import { INDEX_MIGRATION_STEPS, type IndexMigrationStep } from '../../lib/constructs/links-table.ts';
import {
  functions,
  type HandlerName,
  isKeyless,
  routes,
  tableActionsOf,
  timeoutSecondsOf,
} from '../../lib/routes.ts';
import { functionLogicalId, policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;
let violations: unknown[];

beforeAll(() => {
  ({ template, violations } = synthesize());
});

/** Step 3 of the index migration, whose functions read both former indexes: synthesized once, when needed. */
let stepThree: ReturnType<typeof synthesize> | undefined;
const migrationStepThree = () => {
  stepThree ??= synthesize({ indexMigration: '3' });
  return stepThree;
};

const functionsOf = (synthesized: Template) =>
  Object.values(synthesized.findResources('AWS::Lambda::Function')) as {
    Properties: { Environment?: { Variables?: Record<string, unknown> } };
  }[];

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
    const { app, stack } = createApp({
      outdir: mkdtempSync(join(tmpdir(), 'cdk-out-')),
      context: { 'aws:cdk:bundling-stacks': [] },
    });
    new Queue(stack, 'CarelessQueue', { encryption: QueueEncryption.UNENCRYPTED });
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
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

  it('routes every entry of the route table, plus ANY fallbacks per path and $default', () => {
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
      (route) => route.Properties.RouteKey,
    );
    for (const route of routes) expect(routeKeys).toContain(`${route.method} ${route.path}`);
    for (const path of new Set(routes.map((route) => route.path))) expect(routeKeys).toContain(`ANY ${path}`);
    expect(routeKeys).toContain('$default');
  });

  it("throttles the stage and writes access logs that name each request's function invocation", () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
    const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse(stage?.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      integrationRequestId: '$context.integration.requestId',
    });
  });

  it('throttles each public route on its own, with limits sized for buyers and PSPs, and the stage after the routes', () => {
    const stages = template.findResources('AWS::ApiGatewayV2::Stage');
    const [stage] = Object.values(stages);
    const publicKeys = routes.filter((route) => route.public).map((route) => `${route.method} ${route.path}`);
    expect(publicKeys).toEqual(
      expect.arrayContaining(['GET /checkout/{id}', 'POST /psp/{provider}/notifications']),
    );
    expect(Object.keys(stage?.Properties.RouteSettings).sort()).toEqual([...publicKeys].sort());
    for (const key of publicKeys) {
      expect(stage?.Properties.RouteSettings[key]).toEqual({
        ThrottlingRateLimit: 1000,
        ThrottlingBurstLimit: 2000,
      });
    }
    const routeIds = Object.entries(template.findResources('AWS::ApiGatewayV2::Route'))
      .filter(([, route]) => publicKeys.includes(route.Properties.RouteKey))
      .map(([logicalId]) => logicalId);
    expect(stage?.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  it('takes the public routes’ limits from CDK context', () => {
    const { template: tuned } = synthesize({
      publicThrottleRateLimit: '300',
      publicThrottleBurstLimit: '600',
    });
    tuned.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      RouteSettings: Match.objectLike({
        'GET /checkout/{id}': { ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 },
      }),
    });
  });

  it('reserves concurrency for every function reachable without an API key, and for no merchant function', () => {
    const handlers = Object.keys(functions) as HandlerName[];
    expect(handlers.filter(isKeyless).sort()).toEqual(
      [
        'checkout-page',
        'checkout-qr',
        // Its sign-in pages answer anyone; a session is checked inside the function.
        'console',
        'console-overview',
        'get-openapi',
        'psp-notifications',
        'route-fallback',
        'sandbox-checkout',
      ].sort(),
    );
    const reserved = (stackTemplate: Template, handler: HandlerName) =>
      stackTemplate.findResources('AWS::Lambda::Function')[functionLogicalId(stackTemplate, handler)]
        ?.Properties.ReservedConcurrentExecutions;
    for (const handler of handlers) {
      const expected = isKeyless(handler)
        ? (functions[handler] as { reservedConcurrency?: number }).reservedConcurrency
        : undefined;
      if (isKeyless(handler))
        expect({ handler, expected }).toEqual({ handler, expected: expect.any(Number) });
      expect({ handler, reserved: reserved(template, handler) }).toEqual({ handler, reserved: expected });
    }
    expect(reserved(template, 'checkout-page')).toBe(100);
  });

  it('takes each reservation from CDK context, and reserves none with reservedConcurrency=off', () => {
    const { template: tuned } = synthesize({ checkoutPageReservedConcurrency: '300' });
    const { template: off } = synthesize({ reservedConcurrency: 'off' });

    const checkout = (stackTemplate: Template) =>
      stackTemplate.findResources('AWS::Lambda::Function')[functionLogicalId(stackTemplate, 'checkout-page')]
        ?.Properties;
    expect(checkout(tuned)?.ReservedConcurrentExecutions).toBe(300);
    expect(
      Object.values(off.findResources('AWS::Lambda::Function')).filter(
        (fn) => fn.Properties.ReservedConcurrentExecutions !== undefined,
      ),
    ).toEqual([]);
    expect(() => synthesize({ pspNotificationsReservedConcurrency: '0' })).toThrow(/positive integer/);
    expect(() => synthesize({ reservedConcurrency: 'on' })).toThrow(/reservedConcurrency/);
  });

  it('keys the table by pk/sk with the shared index, on demand, encrypted, recoverable and protected outside dev', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: tableSchema.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableSchema.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        SSESpecification: { SSEEnabled: true },
        TimeToLiveSpecification: { AttributeName: tableSchema.timeToLiveAttribute, Enabled: true },
        GlobalSecondaryIndexes: Match.arrayWith([
          Match.objectLike({
            IndexName: tableSchema.gsi1.indexName,
            KeySchema: [
              { AttributeName: tableSchema.gsi1.partitionKey, KeyType: 'HASH' },
              { AttributeName: tableSchema.gsi1.sortKey, KeyType: 'RANGE' },
            ],
          }),
        ]),
        Replicas: [
          Match.objectLike({
            DeletionProtectionEnabled: true,
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          }),
        ],
      }),
    });
  });

  it('keeps in each index only what its readers need', () => {
    const indexesOf = (synthesized: Template) =>
      Object.values(synthesized.findResources('AWS::DynamoDB::GlobalTable')).flatMap(
        (table) =>
          (table as { Properties: { GlobalSecondaryIndexes: { IndexName: string; Projection: unknown }[] } })
            .Properties.GlobalSecondaryIndexes,
      );
    const projections = (synthesized: Template) =>
      Object.fromEntries(indexesOf(synthesized).map((index) => [index.IndexName, index.Projection]));
    // An event's whole copy (over 1 KB) cost 2 write units to enter the outbox and 2 to leave it; this copy, 1.
    expect(projections(template)).toEqual({
      // A link's whole copy was rewritten when its session was saved and when it was paid; the keys, never.
      listings: { ProjectionType: 'KEYS_ONLY' },
      outbox: {
        ProjectionType: 'INCLUDE',
        NonKeyAttributes: ['id', 'account', 'mode', 'delivery_seq', 'endpoint_id', 'kind'],
      },
      // An event's whole copy cost 2 write units when written and 2 when its attempt was recorded; this, 1 and 0.
      timelines: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['id', 'mode', 'link_id', 'type'] },
    });
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

  it("moves a deployed table to today's indexes one index per deploy, the functions reading complete indexes only", () => {
    const beforeOutbox = ['gsi1', 'gsi2', 'gsi3'];
    const today = tableIndexes.map((index) => index.indexName);
    const layouts = [beforeOutbox, ...INDEX_MIGRATION_STEPS.map((step) => step.indexes), today];
    const reads = (index: number): string[] => {
      if (index === 0 || index === layouts.length - 1) return index === 0 ? ['gsi1', 'gsi3'] : today;
      const step = INDEX_MIGRATION_STEPS[index - 1] as IndexMigrationStep;
      return Object.values({ ...currentIndexNames, ...step.reads });
    };
    for (let index = 1; index < layouts.length; index++) {
      const [before, after] = [new Set(layouts[index - 1]), new Set(layouts[index])];
      const changed =
        [...before].filter((name) => !after.has(name)).length +
        [...after].filter((name) => !before.has(name)).length;
      expect({ deploy: index, changed }).toEqual({ deploy: index, changed: 1 });
      for (const name of reads(index)) {
        // Complete when the deploy starts (so not one it adds), and still there when it ends.
        expect({ deploy: index, reads: name, complete: before.has(name) && after.has(name) }).toMatchObject({
          complete: true,
        });
      }
      for (const name of reads(index - 1)) {
        // The functions of the deploy before still run while this one changes the table.
        expect({ deploy: index, previousReads: name, kept: after.has(name) }).toMatchObject({ kept: true });
      }
    }

    const settings = (synthesized: Template) =>
      new Set(
        functionsOf(synthesized).map((fn) =>
          JSON.stringify([
            fn.Properties.Environment?.Variables?.LISTINGS_INDEX,
            fn.Properties.Environment?.Variables?.TIMELINES_INDEX,
          ]),
        ),
      );
    const indexNames = (synthesized: Template) =>
      (
        Object.values(synthesized.findResources('AWS::DynamoDB::GlobalTable'))[0] as {
          Properties: { GlobalSecondaryIndexes: { IndexName: string }[] };
        }
      ).Properties.GlobalSecondaryIndexes.map((index) => index.IndexName);
    const queryGrants = (synthesized: Template) =>
      JSON.stringify(policyStatementsOf(synthesized, 'list-events'));

    // A stack deployed before 2026-11-26 starts at step 3: `timelines` added, gsi1 and gsi3 still read.
    const third = migrationStepThree();
    expect(third.violations).toEqual([]);
    expect(indexNames(third.template).sort()).toEqual(['gsi1', 'gsi3', 'outbox', 'timelines']);
    expect(settings(third.template)).toEqual(new Set([JSON.stringify(['gsi1', 'gsi3'])]));
    expect(queryGrants(third.template)).toContain('/index/gsi3');
    // Step 4 adds `listings`; the functions read `timelines` now.
    const fourth = synthesize({ indexMigration: '4' });
    expect(indexNames(fourth.template).sort()).toEqual(['gsi1', 'gsi3', 'listings', 'outbox', 'timelines']);
    expect(settings(fourth.template)).toEqual(new Set([JSON.stringify(['gsi1', undefined])]));
    // Without a step: today's indexes, read under their own names, and no grant on a former one.
    expect(indexNames(template).sort()).toEqual(['listings', 'outbox', 'timelines']);
    expect(settings(template)).toEqual(new Set([JSON.stringify([undefined, undefined])]));
    expect(queryGrants(template)).not.toMatch(/index\/gsi\d/);
    // The outbox's first deploy keeps its old name; a former index is as it was, every attribute on its keys.
    const first = synthesize({ legacyOutboxIndex: 'true' }).template;
    expect(indexNames(first).sort()).toEqual(['gsi1', 'gsi2', 'gsi3', 'outbox']);
    first.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: Match.arrayWith([
        {
          IndexName: 'gsi2',
          KeySchema: [
            { AttributeName: 'gsi2pk', KeyType: 'HASH' },
            { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ]),
    });
    expect(() => synthesize({ indexMigration: String(INDEX_MIGRATION_STEPS.length + 1) })).toThrow(
      /from 1 to/,
    );
  });

  it('refuses a planned peak above the key design, whose shard counts every function is built with', () => {
    expect(() => synthesize({ peakLinksPerSecond: String(DESIGN_PEAK.linksPerSecond + 1) })).toThrow(
      /raise DESIGN_PEAK/,
    );
    expect(() =>
      synthesize({ peakLinksPerSecondOfOneMerchant: String(DESIGN_PEAK.linksPerSecondOfOneMerchant * 2) }),
    ).toThrow(/peakLinksPerSecondOfOneMerchant/);
  });

  it('adds what the merchant-API middleware needs: key lookups and rate limits, and idempotency on POST routes', () => {
    expect(tableActionsOf('get-payment-link')).toEqual(['GetItem', 'UpdateItem']);
    expect(tableActionsOf('redeliver-event')).toEqual([
      'DeleteItem',
      'GetItem',
      'PutItem',
      'Query',
      'UpdateItem',
    ]);
    expect(tableActionsOf('route-fallback')).toEqual([]);
  });

  it('lets each function do exactly the DynamoDB actions the route table lists, on this table only', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const dynamoStatements = policies
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
      .filter(
        (statement) =>
          statement.Effect === 'Allow' &&
          [statement.Action].flat().some((action: string) => action.startsWith('dynamodb:')),
      );
    const expected = (Object.keys(functions) as HandlerName[])
      .map((handler) => tableActionsOf(handler).map((action) => `dynamodb:${action}`))
      .filter((actions) => actions.length);
    const actual = dynamoStatements.map((statement) => [statement.Action].flat().sort());
    expect(actual).toEqual(expect.arrayContaining(expected));
    expect(actual).toHaveLength(expected.length);
    for (const statement of dynamoStatements) {
      expect(JSON.stringify(statement.Resource)).toMatch(/LinksTable/);
      expect(JSON.stringify(statement.Action)).not.toContain('*');
    }
  });

  it('lets every function that reaches PSP connections find a stored one by its id: Query on listings, then GetItem', () => {
    const pspHandlers = (Object.keys(functions) as HandlerName[]).filter((handler) =>
      (functions[handler] as { secrets?: readonly string[] }).secrets?.includes('psp'),
    );
    expect(pspHandlers).toEqual(
      expect.arrayContaining(['checkout-page', 'update-payment-link', 'cancel-payment-link', 'expire-links']),
    );
    for (const handler of pspHandlers) {
      const queries = policyStatementsOf(template, handler).filter(
        (statement: { Effect: string; Action: unknown }) =>
          statement.Effect === 'Allow' && [statement.Action].flat().includes('dynamodb:Query'),
      );
      expect({ handler, granted: queries.length }).toEqual({ handler, granted: 1 });
      expect(JSON.stringify(queries[0].Resource)).toContain(`/index/${tableSchema.gsi1.indexName}`);
      // The index holds the connection's key only; the connection itself is read from the table.
      expect([queries[0].Action].flat()).toContain('dynamodb:GetItem');
    }
  });

  it('denies the public-facing functions every API-key record and signing secret, by partition key', () => {
    const publicFacing = ['checkout-page', 'psp-notifications', 'sandbox-checkout'] as const;
    for (const handler of Object.keys(functions) as HandlerName[]) {
      const denials = policyStatementsOf(template, handler).filter(
        (statement: { Effect: string }) => statement.Effect === 'Deny',
      );
      if (!(publicFacing as readonly string[]).includes(handler)) {
        expect({ handler, denials }).toEqual({ handler, denials: [] });
        continue;
      }
      expect(denials).toHaveLength(1);
      const [denial] = denials;
      expect([denial.Action].flat().sort()).toEqual(
        tableActionsOf(handler).map((action) => `dynamodb:${action}`),
      );
      expect(denial.Condition).toEqual({
        'ForAnyValue:StringLike': {
          'dynamodb:LeadingKeys': [
            'APIKEY#*',
            'ACCOUNT#*#APIKEYS',
            'SIGNING_SECRET#*',
            'WEBHOOK_ENDPOINTS#*',
            'CONSOLE_*',
          ],
        },
      });
      expect(JSON.stringify(denial.Resource)).toMatch(/LinksTable/);
    }
  });

  it('lets only the delivery function open signing secrets, and the endpoint functions seal new ones, for signing secrets only; and rotates the key', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const kmsActions = (handler: HandlerName) =>
      policyStatementsOf(template, handler).flatMap((statement: { Action: string | string[] }) =>
        [statement.Action].flat().filter((action) => action.startsWith('kms:')),
      );
    const decrypting = (Object.keys(functions) as HandlerName[]).filter((handler) =>
      kmsActions(handler).includes('kms:Decrypt'),
    );
    expect(decrypting).toEqual(['deliver-webhook']);
    const sealing = (Object.keys(functions) as HandlerName[]).filter(
      (handler) => handler !== 'deliver-webhook' && kmsActions(handler).length,
    );
    expect(sealing.sort()).toEqual(['console', 'create-webhook-endpoint', 'rotate-webhook-endpoint-secret']);
    for (const handler of sealing) {
      expect(policyStatementsOf(template, handler)).toContainEqual(
        expect.objectContaining({
          Action: 'kms:GenerateDataKey',
          Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' } },
        }),
      );
    }
    const [statement] = policyStatementsOf(template, 'deliver-webhook').filter(
      (candidate: { Action: string | string[] }) => [candidate.Action].flat().includes('kms:Decrypt'),
    );
    expect(statement).toMatchObject({
      Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
      Effect: 'Allow',
      Condition: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing-secret' } },
    });
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
