import { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { kmsClient } from '../../functions/clients/kms.ts';
import { secretsManagerClient } from '../../functions/clients/secrets-manager.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';

describe('the AWS SDK clients', () => {
  it('would carry the SDK logger middleware by default (the name the clients remove)', () => {
    expect(new SQSClient({}).middlewareStack.identify()).toContain('loggerMiddleware - initialize');
  });

  it.each([
    ['DynamoDB', documentClient],
    ['SQS', sqsClient],
    ['Secrets Manager', secretsManagerClient],
    ['KMS', kmsClient],
  ])(
    '%s carries no logger middleware (it filters every input and output for a logger we never set)',
    (_name, client) => {
      const middleware = client().middlewareStack.identify();
      expect(middleware.length).toBeGreaterThan(5);
      expect(middleware.filter((name) => name.startsWith('loggerMiddleware'))).toEqual([]);
    },
  );
});
