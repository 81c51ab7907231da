import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * One Secrets Manager client per container (STYLE.md point 3). PURE: a function that reads no secret does not
 * keep the client in its bundle.
 */
export const secretsManagerClient = /* @__PURE__ */ new SecretsManagerClient({});
