import { SQSClient } from '@aws-sdk/client-sqs';

/**
 * One SQS client per container; the local stack points it at the embedded emulator via `AWS_ENDPOINT_URL_SQS`.
 * `useQueueUrlAsEndpoint: false`: send to the endpoint the SDK resolved (the regional one on AWS, where the
 * queue URL has the same host anyway), not the queue URL's host. The emulator's queue URLs have a host that
 * is no valid URL host, so otherwise every send logged a warning with a stack trace first.
 * PURE: a function that never sends events does not keep the SQS client in its bundle.
 */
export const sqsClient = /* @__PURE__ */ new SQSClient({ useQueueUrlAsEndpoint: false });
