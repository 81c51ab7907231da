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
  replacedIndexes,
  tableIndexes,
  tableSchema,
} from '../../functions/adapters/dynamodb/table-schema.ts';

/**
 * A deploy of a deployed table's move to an index that replaced another
 * (docs/operations.md#index-migrations): `fill` adds the replacement beside the index it replaces, which the
 * functions go on reading; `switch` keeps both while the functions move to the replacement. The deploy after
 * them, without a migration, drops the old one.
 */
export interface IndexMigration {
  /** The replacement's name, a key of `replacedIndexes` (e.g. `timelines`). */
  index: string;
  step: 'fill' | 'switch';
}

export const INDEX_MIGRATION_STEPS = ['fill', 'switch'] as const;

export interface LinksTableProps {
  /** Outside dev stages the table is retained on stack deletion and deletion-protected. */
  protectData: boolean;
  /** The step of an index migration this deploy makes, if any. */
  indexMigration?: IndexMigration;
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
    const migration = props.indexMigration;
    const replaced = migration && replacedIndexes[migration.index];
    if (migration && !replaced) {
      throw new Error(
        `No index replaced another as ${migration.index} did: ${Object.keys(replacedIndexes).join(', ')}`,
      );
    }
    const indexes = replaced ? [...tableIndexes, replaced.index] : tableIndexes;
    this.indexNames = indexes.map((index) => index.indexName);
    this.environment =
      replaced?.readSetting && migration?.step === 'fill'
        ? { [replaced.readSetting]: replaced.index.indexName }
        : {};
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
        ...(index.projection.type === 'ALL'
          ? { projectionType: ProjectionType.ALL }
          : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection.attributes] }),
      })),
    });
  }
}
