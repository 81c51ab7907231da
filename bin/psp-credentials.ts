import { existsSync, readFileSync } from 'node:fs';
import { credentialFields } from '../functions/adapters/psp/kit/credentials.ts';
import { PSP_DESCRIPTORS } from '../functions/adapters/psp/registry.ts';
import type { PspDescriptor } from '../functions/ports/psp-descriptor.ts';
import { writeLocalSecrets } from '../lib/local/local-secrets.ts';

/**
 * The credential flags of `npm run psp` (docs/orchestration.md#connections), generated from each PSP's descriptor:
 * `--<id>-<field>` for every field of its credentials (`_` as `-`), with the field's description as its help.
 */

/** Every PSP's credential flags, as `parseArgs` options. */
export const credentialOptions = (): Record<string, { type: 'string' }> =>
  Object.fromEntries(
    PSP_DESCRIPTORS.flatMap((descriptor) =>
      credentialFields(descriptor).map(({ flag }) => [flag, { type: 'string' as const }]),
    ),
  );

/** A line of the credential flags' help, under `name` (a PSP's id, or blank for its next flags). */
export const helpLine = (name: string, text: string): string =>
  `  ${name.padEnd(Math.max(...PSP_DESCRIPTORS.map((descriptor) => descriptor.id.length)) + 2)}${text}`;

/** The help of the credential flags, one PSP after the other, its optional flags in brackets. */
export function credentialsHelp(): string {
  return PSP_DESCRIPTORS.filter((descriptor) => descriptor.credentials)
    .flatMap((descriptor) =>
      credentialFields(descriptor).map(({ flag, description, optional }, index) =>
        helpLine(
          index === 0 ? descriptor.id : '',
          `${optional ? `[--${flag} …]` : `--${flag} …`}  ${description}`,
        ),
      ),
    )
    .join('\n');
}

type Flags = Record<string, string | boolean | undefined>;

/**
 * The credentials the flags give for `descriptor`'s PSP (`--credentials` JSON, or its own flags), or undefined
 * when none are given; a string saying what is wrong when `--credentials` is no JSON or a flag of another PSP is
 * given.
 */
export function credentialsFromFlags(
  descriptor: PspDescriptor,
  flags: Flags,
): Record<string, unknown> | undefined | string {
  const own = new Set(credentialFields(descriptor).map(({ flag }) => flag));
  const foreign = Object.keys(credentialOptions()).find(
    (flag) => !own.has(flag) && flags[flag] !== undefined,
  );
  if (foreign) return `--${foreign} is not a flag of ${descriptor.id} connections.`;
  if (typeof flags.credentials === 'string') {
    try {
      const parsed = JSON.parse(flags.credentials) as unknown;
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : '--credentials must be a JSON object.';
    } catch {
      return '--credentials must be JSON.';
    }
  }
  const entries = credentialFields(descriptor).flatMap(({ field, flag }) =>
    typeof flags[flag] === 'string' ? [[field, flags[flag]] as const] : [],
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/**
 * Where the CLI keeps credentials: the local stack's 0600 secrets file, or Secrets Manager for a deployed stack
 * (the usual AWS credentials and region).
 */
export function secretsOf(localSecretsFile: string | undefined) {
  const local = () =>
    localSecretsFile && existsSync(localSecretsFile)
      ? (JSON.parse(readFileSync(localSecretsFile, 'utf8')) as Record<string, string>)
      : {};
  const client = async () => {
    const sdk = await import('@aws-sdk/client-secrets-manager');
    return { sdk, client: new sdk.SecretsManagerClient({}) };
  };
  return {
    async get(name: string): Promise<string | undefined> {
      if (localSecretsFile) return local()[name];
      const { sdk, client: secrets } = await client();
      return (await secrets.send(new sdk.GetSecretValueCommand({ SecretId: name }))).SecretString;
    },
    /** Stores a new secret, or (`replace`) a new value of an existing one. */
    async put(name: string, value: string, replace: boolean): Promise<void> {
      if (localSecretsFile) {
        writeLocalSecrets(localSecretsFile, { ...local(), [name]: value });
        return;
      }
      const { sdk, client: secrets } = await client();
      if (replace) await secrets.send(new sdk.PutSecretValueCommand({ SecretId: name, SecretString: value }));
      else await secrets.send(new sdk.CreateSecretCommand({ Name: name, SecretString: value }));
    },
  };
}
