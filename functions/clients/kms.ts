import { KMSClient } from '@aws-sdk/client-kms';
import { once } from '../once.ts';
import { withoutSdkLogger } from './without-sdk-logger.ts';

/** One KMS client per container (it keeps its connections warm across invocations), built on first use, not at import. */
export const kmsClient = /* @__PURE__ */ once(() => withoutSdkLogger(new KMSClient({})));
