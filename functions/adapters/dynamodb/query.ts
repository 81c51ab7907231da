import { type DynamoDBDocumentClient, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { tableSchema, withoutKeys } from './table-schema.ts';

/**
 * Every record of one `gsi1` partition, in key order, all pages read. For listings that are small by nature
 * and read whole: an account's API keys, a link's events.
 */
export async function recordsOfGsi1Partition<T>(
  client: DynamoDBDocumentClient,
  tableName: string,
  partition: string,
): Promise<T[]> {
  const records: T[] = [];
  const pages = paginateQuery(
    { client },
    {
      TableName: tableName,
      IndexName: tableSchema.gsi1.indexName,
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
    },
  );
  for await (const page of pages) for (const item of page.Items ?? []) records.push(withoutKeys<T>(item));
  return records;
}
