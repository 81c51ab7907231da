import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { once } from '../once.ts';
import { withoutSdkLogger } from './without-sdk-logger.ts';

/**
 * The DynamoDB client, created once per container (at its first use) and shared by every adapter, so that
 * invocations reuse its connections and resolved credentials. Endpoints come from the SDK's own
 * `AWS_ENDPOINT_URL_DYNAMODB` / `AWS_ENDPOINT_URL_SQS` variables, which the local stack and tests point at the
 * embedded servers; on AWS they are unset.
 */
export const documentClient = /* @__PURE__ */ once(() =>
  DynamoDBDocumentClient.from(withoutSdkLogger(new DynamoDBClient({})), {
    marshallOptions: { removeUndefinedValues: true },
  }),
);
