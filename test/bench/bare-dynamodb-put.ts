import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The baseline every Lambda bundle and cold import is compared with: the bare DynamoDB client and lib-dynamodb,
 * created at module scope like functions/clients/dynamodb.ts, doing one conditional PutItem.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const handler = async (event: { tableName: string; item: Record<string, unknown> }) =>
  client.send(
    new PutCommand({
      TableName: event.tableName,
      Item: event.item,
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
