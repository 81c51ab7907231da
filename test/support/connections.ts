import { readFileSync } from 'node:fs';
import { pspConnectionRepository } from '../../functions/dependencies.ts';
import {
  createConnection,
  type NewConnection,
  type PspConnection,
} from '../../functions/domain/connection.ts';
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
  if (connection.secret_name) {
    const file = process.env.LOCAL_SECRETS_FILE as string;
    const secrets = JSON.parse(readFileSync(file, 'utf8'));
    secrets[connection.secret_name] = JSON.stringify(input.credentials ?? {});
    writeLocalSecrets(file, secrets);
  }
  await pspConnectionRepository().create(connection);
  return connection;
}
