import { KMSClient } from '@aws-sdk/client-kms';
import { once } from '../once.ts';

/** One KMS client per container (STYLE.md point 3), built on first use, not at import. */
export const kmsClient = /* @__PURE__ */ once(() => new KMSClient({}));
