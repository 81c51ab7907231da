import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** One Secrets Manager client per container (STYLE.md point 3). */
export const secretsManagerClient = new SecretsManagerClient({});
