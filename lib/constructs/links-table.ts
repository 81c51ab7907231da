import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  Billing,
  type ITableV2,
  ProjectionType,
  TableEncryptionV2,
  TableV2,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  formerIndexes,
  type IndexNames,
  type TableIndex,
  tableIndexes,
  tableSchema,
} from '../../functions/adapters/dynamodb/table-schema.ts';

/** One deploy of a deployed table's move to today's indexes: the indexes it leaves, and what the functions read. */
export interface IndexMigrationStep {
  indexes: readonly string[];
  /** The indexes the functions query instead of today's, by role (their settings in functions/config.ts). */
  reads: Partial<IndexNames>;
}

/**
 * The deploys that move a deployed table to today's indexes (docs/operations.md#index-migrations), step 1
 * first; after the last, a deploy without a step leaves `tableIndexes`. Each adds or deletes one index
 * (CloudFormation's limit per update), and the functions of a step read only indexes that were complete
 * before it and stay through it: an added index is read from the step after the one that added it
 * (CloudFormation completes a deploy once the index is filled), and a deleted one is no longer read by the
 * step before (the table changes before the functions in the same deploy). test/infra/table.test.ts checks
 * both rules.
 */
export const INDEX_MIGRATION_STEPS: readonly IndexMigrationStep[] = [
  // A stack deployed before `outbox` had gsi1, gsi2 and gsi3. The outbox sweeper reads `outbox` at once: a
  // run while it fills fails and the next one retries (the queue send at each commit does not use it).
  { indexes: ['gsi1', 'gsi2', 'gsi3', 'outbox'], reads: { listings: 'gsi1', timelines: 'gsi3' } },
  { indexes: ['gsi1', 'gsi3', 'outbox'], reads: { listings: 'gsi1', timelines: 'gsi3' } },
  // A stack deployed between `outbox` and 2026-11-26 has gsi1, gsi3 and outbox: it starts here.
  { indexes: ['gsi1', 'gsi3', 'outbox', 'timelines'], reads: { listings: 'gsi1', timelines: 'gsi3' } },
  { indexes: ['gsi1', 'gsi3', 'outbox', 'timelines', 'listings'], reads: { listings: 'gsi1' } },
  { indexes: ['gsi1', 'outbox', 'timelines', 'listings'], reads: {} },
];

/**
 * The function setting that names the index of each role (read by functions/config.ts; test/infra/stack.test.ts
 * checks that the stack gives the functions no setting it does not read).
 */
const READ_SETTINGS: Record<keyof IndexNames, string> = {
  listings: 'LISTINGS_INDEX',
  timelines: 'TIMELINES_INDEX',
};

export interface LinksTableProps {
  /** Outside dev stages the table is retained on stack deletion and deletion-protected. */
  protectData: boolean;
  /** The step of the index migration this deploy makes (1-based), if any. */
  indexMigrationStep?: number;
}

/** The single table (key schema in functions/adapters/dynamodb/table-schema.ts, shared with the local stack). */
export class LinksTable extends Construct {
  readonly table: ITableV2;
  /** The names of the table's indexes, for the functions' grants. */
  readonly indexNames: readonly string[];
  /** The settings that point the functions at the indexes to read (functions/config.ts). */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, props: LinksTableProps) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute } = tableSchema;
    const step =
      props.indexMigrationStep === undefined
        ? undefined
        : INDEX_MIGRATION_STEPS[props.indexMigrationStep - 1];
    if (props.indexMigrationStep !== undefined && !step) {
      throw new Error(
        `indexMigration must be a step from 1 to ${INDEX_MIGRATION_STEPS.length}: ${props.indexMigrationStep}`,
      );
    }
    const byName = new Map<string, TableIndex>(
      [...formerIndexes, ...tableIndexes].map((index) => [index.indexName, index]),
    );
    const indexes = step ? step.indexes.map((name) => byName.get(name) as TableIndex) : tableIndexes;
    this.indexNames = indexes.map((index) => index.indexName);
    this.environment = Object.fromEntries(
      Object.entries(step?.reads ?? {}).map(([role, name]) => [
        READ_SETTINGS[role as keyof IndexNames],
        name,
      ]),
    );
    const stringKey = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new TableV2(this, 'Table', {
      partitionKey: stringKey(partitionKey),
      sortKey: stringKey(sortKey),
      billing: Billing.onDemand(),
      encryption: TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute,
      deletionProtection: props.protectData,
      removalPolicy: props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      globalSecondaryIndexes: indexes.map((index) => ({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        ...(index.projection.type === 'INCLUDE'
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.attributes] }
          : { projectionType: ProjectionType[index.projection.type] }),
      })),
    });
  }
}
