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
import { tableSchema } from '../../functions/adapters/dynamodb/table-schema.ts';

export interface LinksTableProps {
  /** Outside dev stages the table is retained on stack deletion and deletion-protected. */
  protectData: boolean;
}

/** The single table (key schema in functions/adapters/dynamodb/table-schema.ts, shared with the local stack). */
export class LinksTable extends Construct {
  readonly table: ITableV2;

  constructor(scope: Construct, id: string, props: LinksTableProps) {
    super(scope, id);
    const { partitionKey, sortKey, gsi1, gsi2, gsi3, timeToLiveAttribute } = tableSchema;
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
      globalSecondaryIndexes: [gsi1, gsi2, gsi3].map((index) => ({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: ProjectionType.ALL,
      })),
    });
  }
}
