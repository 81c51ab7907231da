import { type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type EmbeddedSqs, startEmbeddedSqs } from '../../lib/local/embedded-sqs.ts';

/** An in-memory embedded SQS and a real SDK client for it, for tests of the queue itself. */
export async function startSqsWithClient(): Promise<{
  sqs: EmbeddedSqs;
  client: SQSClient;
  stop(): Promise<void>;
}> {
  const sqs = await startEmbeddedSqs({});
  const client = new SQSClient({
    endpoint: sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // fauxqs names queues `http://sqs.<region>.127.0.0.1:<port>/...`, not a valid URL: use the endpoint.
    useQueueUrlAsEndpoint: false,
  });
  return {
    sqs,
    client,
    stop: async () => {
      client.destroy();
      await sqs.stop();
    },
  };
}

/** One receive of up to ten ready messages, each with its `MessageGroupId` (the tenant of an events message). */
export async function receiveWithGroups(client: SQSClient, queueUrl: string): Promise<Message[]> {
  const { Messages } = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['MessageGroupId'],
    }),
  );
  return Messages ?? [];
}
