import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { once } from '../once.ts';

/** One Secrets Manager client per container (it keeps its connections warm across invocations), built on the first secret read, not at import. */
export const secretsManagerClient = /* @__PURE__ */ once(() => new SecretsManagerClient({}));
