import { readFileSync } from 'node:fs';
import { descriptorOf } from '../../functions/adapters/psp/registry.ts';
import { pspConfigRepository, pspConnectionRepository } from '../../functions/dependencies.ts';
import {
  createConnection,
  type NewConnection,
  type PspConnection,
} from '../../functions/domain/connection.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import { LOCAL_PSP_SECRET_PREFIX, writeLocalSecrets } from '../../lib/local/local-secrets.ts';

let added = 0;

/**
 * Stores a connection as `npm run psp -- add` does (credentials in the local stack's secrets file), each one
 * a millisecond after the previous so that "the order they were added" is well defined.
 */
export async function addConnection(
  input: NewConnection & { credentials?: Record<string, string> },
): Promise<PspConnection> {
  added++;
  const connection = createConnection(input, LOCAL_PSP_SECRET_PREFIX, new Date(Date.now() + added));
  if (connection.secret_name) storeLocalSecret(connection.secret_name, input.credentials ?? {});
  await pspConnectionRepository().create(connection);
  return connection;
}

/**
 * Configures `provider` for an (account, mode) the way `npm run psp -- set` did before connections existed: the
 * configuration item, and the credentials under their old secret name (its descriptor's `legacy`). The first
 * read migrates it (docs/orchestration.md#migration).
 */
export async function configureLegacyPsp(
  account: string,
  mode: Mode,
  provider: string,
  credentials: Readonly<Record<string, string>>,
): Promise<void> {
  const legacy = descriptorOf(provider)?.legacy;
  if (!legacy) throw new Error(`${provider} was never configured before connections existed.`);
  await pspConfigRepository().put({ account, mode, provider, updated_at: new Date().toISOString() });
  storeLocalSecret(legacy.secretName(LOCAL_PSP_SECRET_PREFIX, account, mode), credentials);
}

/** Writes a secret into the local stack's secrets file, as the PSP CLI does. */
function storeLocalSecret(name: string, value: unknown): void {
  const file = process.env.LOCAL_SECRETS_FILE as string;
  const secrets = JSON.parse(readFileSync(file, 'utf8'));
  secrets[name] = JSON.stringify(value);
  writeLocalSecrets(file, secrets);
}
