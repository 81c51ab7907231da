import { SQSClient } from '@aws-sdk/client-sqs';
import { once } from '../once.ts';
import { withoutSdkLogger } from './without-sdk-logger.ts';

/**
 * One SQS client per container, built on first send rather than at import (the DynamoDB client is needed by
 * every request; this one only by some); the local stack points it at the embedded emulator via
 * `AWS_ENDPOINT_URL_SQS`. `useQueueUrlAsEndpoint: false`: send to the endpoint the SDK resolved (the regional
 * one on AWS, where the queue URL has the same host anyway), not the queue URL's host. The emulator's queue URLs
 * have a host that is no valid URL host, so otherwise every send logged a warning with a stack trace first.
 */
export const sqsClient = /* @__PURE__ */ once(() =>
  withoutSdkLogger(new SQSClient({ useQueueUrlAsEndpoint: false })),
);
