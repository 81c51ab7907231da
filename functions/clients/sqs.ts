import { SQSClient } from '@aws-sdk/client-sqs';

/** One SQS client per container; the local stack points it at the embedded emulator via `AWS_ENDPOINT_URL_SQS`. */
export const sqsClient = new SQSClient({
  // Always the resolved endpoint (regional on AWS, the emulator locally), never the queue URL's host: the local
  // emulator names queues `http://sqs.<region>.127.0.0.1:<port>/...`, which is not a valid URL.
  useQueueUrlAsEndpoint: false,
});
