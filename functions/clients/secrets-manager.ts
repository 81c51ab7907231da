import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { once } from '../once.ts';
import { withoutSdkLogger } from './without-sdk-logger.ts';

/** One Secrets Manager client per container (it keeps its connections warm across invocations), built on the first secret read, not at import. */
export const secretsManagerClient = /* @__PURE__ */ once(() =>
  withoutSdkLogger(new SecretsManagerClient({})),
);
