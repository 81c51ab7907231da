import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretStore } from '../../ports/secret-store.ts';

/**
 * AWS Secrets Manager through Powertools Parameters: each secret is fetched once per warm container and then
 * served from memory for `maxAgeSeconds` (so a rotated key reaches running containers within that time).
 */
export class SecretsManagerSecretStore implements SecretStore {
  private readonly provider: SecretsProvider;
  private readonly maxAgeSeconds: number;

  constructor(client: SecretsManagerClient, options: { maxAgeSeconds: number }) {
    this.provider = new SecretsProvider({ awsSdkV3Client: client });
    this.maxAgeSeconds = options.maxAgeSeconds;
  }

  async get(name: string): Promise<string | undefined> {
    try {
      const value = await this.provider.get(name, { maxAge: this.maxAgeSeconds });
      return typeof value === 'string' ? value : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
}

function isNotFound(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } }).cause;
  return cause?.name === 'ResourceNotFoundException';
}
