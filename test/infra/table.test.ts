import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  currentIndexNames,
  DESIGN_PEAK,
  tableIndexes,
  tableSchema,
} from '../../functions/adapters/dynamodb/table-schema.ts';
import { INDEX_MIGRATION_STEPS, type IndexMigrationStep } from '../../lib/constructs/links-table.ts';
import { functionsOf, migrationStepThree, policyStatementsOf, synthesize } from '../support/synth.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize());
});

describe('the CDK stack’s table', () => {
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
});
