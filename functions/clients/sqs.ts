import { SQSClient } from '@aws-sdk/client-sqs';

/** One SQS client per container; the local stack points it at the embedded emulator via `AWS_ENDPOINT_URL_SQS`. */
export const sqsClient = /* @__PURE__ */ new SQSClient({});
