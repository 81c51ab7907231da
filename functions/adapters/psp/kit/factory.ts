import type * as z from 'zod/mini';
import type { PspConnection } from '../../../domain/connection.ts';
import { PspNotConfiguredError } from '../../../domain/errors.ts';
import type { Psp, PspFactory } from '../../../ports/psp.ts';
import type { CredentialsSchema, PspDescriptor } from '../../../ports/psp-descriptor.ts';
import type { SecretStore } from '../../../ports/secret-store.ts';
import { checkCredentials, parseStoredCredentials } from './credentials.ts';

/**
 * The factory of a PSP whose connections keep their credentials in the secret store: they are checked by its
 * descriptor (`checkCredentials`) each time an adapter is built from them, not only when stored, so a key of the
 * other mode, or one replaced in the secret store by hand, never serves the connection; anything wrong makes it
 * unable to serve (`PspNotConfiguredError`). `build` makes the adapter from the checked credentials (the PSP's
 * SDK loaded there, on first use). Each connection's adapter lasts as long as the credentials it was built with
 * (`ConnectionAdapters`).
 */
export function storedCredentialsFactory<S extends CredentialsSchema>(
  descriptor: PspDescriptor<S>,
  secrets: SecretStore,
  build: (credentials: z.infer<S>, connection: PspConnection) => Promise<Psp>,
): PspFactory {
  const adapters = new ConnectionAdapters(secrets);
  return {
    create: (connection) =>
      adapters.get(connection, async (raw) => {
        const checked = checkCredentials(descriptor, parseStoredCredentials(raw), connection.mode);
        if (!checked.ok) {
          throw new PspNotConfiguredError(
            `${descriptor.displayName} connection ${connection.id}: ${checked.problem}`,
          );
        }
        return build(checked.credentials, connection);
      }),
  };
}

/**
 * The adapters of one provider's connections, each rebuilt as soon as its stored credentials change: the
 * secret is read on every `create` (the SecretStore keeps it in memory for at most `SECRETS_CACHE_SECONDS`,
 * 5 minutes at most), so a rotated key or notification secret is in use within 5 minutes, never only when the
 * container is recycled (docs/orchestration.md#rotating-credentials).
 */
class ConnectionAdapters {
  private readonly secrets: SecretStore;
  private readonly adapters = new Map<string, { credentials: string; psp: Promise<Psp> }>();

  constructor(secrets: SecretStore) {
    this.secrets = secrets;
  }

  async get(
    connection: PspConnection,
    build: (credentials: string | undefined) => Promise<Psp>,
  ): Promise<Psp> {
    const credentials = connection.secret_name ? await this.secrets.get(connection.secret_name) : undefined;
    const key = `${connection.id}/${connection.mode}`;
    const cached = this.adapters.get(key);
    if (cached && credentials !== undefined && cached.credentials === credentials) return cached.psp;
    const psp = build(credentials);
    if (credentials !== undefined) {
      this.adapters.set(key, { credentials, psp });
      psp.catch(() => {
        if (this.adapters.get(key)?.psp === psp) this.adapters.delete(key);
      });
    }
    return psp;
  }
}
