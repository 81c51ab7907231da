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
  legacyOutboxIndex,
  tableIndexes,
  tableSchema,
} from '../../functions/adapters/dynamodb/table-schema.ts';

export interface LinksTableProps {
  /** Outside dev stages the table is retained on stack deletion and deletion-protected. */
  protectData: boolean;
  /**
   * Keep the outbox's former index (`gsi2`, every attribute) beside `outbox`: the first of the two deploys that
   * move an existing table to `outbox`, since CloudFormation adds or deletes one index per update
   * (docs/operations.md#the-outbox-index-migration).
   */
  legacyOutboxIndex?: boolean;
}

/** The single table (key schema in functions/adapters/dynamodb/table-schema.ts, shared with the local stack). */
export class LinksTable extends Construct {
  readonly table: ITableV2;

  constructor(scope: Construct, id: string, props: LinksTableProps) {
    super(scope, id);
    const { partitionKey, sortKey, timeToLiveAttribute } = tableSchema;
    const indexes = props.legacyOutboxIndex ? [...tableIndexes, legacyOutboxIndex] : tableIndexes;
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
