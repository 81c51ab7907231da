import type * as z from 'zod/mini';
import { globalRegistry } from 'zod/mini';
import type { Mode } from '../../../domain/principal.ts';
import type { CredentialsSchema, PspDescriptor } from '../../../ports/psp-descriptor.ts';

/**
 * A PSP's credentials as its descriptor states them (`PspDescriptor.credentials`): checked before they are
 * stored (`npm run psp -- add`, `update-credentials`) and each time an adapter is built from them. Light: the CLI
 * checks them without loading any PSP's SDK.
 */

/** One field of a PSP's credentials, and the CLI flag that fills it (`--<id>-<field>`, `_` as `-`). */
export interface CredentialField {
  field: string;
  flag: string;
  description: string;
  optional: boolean;
}

/** What the credentials of a PSP with `descriptor` parse to. */
export type CredentialsOf<D extends PspDescriptor> = D extends PspDescriptor<infer S> ? z.infer<S> : never;

type Checked<S extends CredentialsSchema> =
  | { ok: true; credentials: z.infer<S> }
  | { ok: false; problem: string };

/** The fields of a PSP's credentials, in the order its descriptor lists them; none for a PSP without any. */
export function credentialFields(descriptor: PspDescriptor): CredentialField[] {
  if (!descriptor.credentials) return [];
  const prefix = descriptor.id.replaceAll('_', '-');
  return Object.entries(descriptor.credentials().shape).map(([field, schema]) => ({
    field,
    flag: `${prefix}-${field.replaceAll('_', '-')}`,
    description: descriptionOf(schema as z.ZodMiniType),
    optional: (schema as z.ZodMiniType)._zod.optin === 'optional',
  }));
}

/**
 * The credentials, parsed, when they can serve a connection of the PSP in `mode`; else what is wrong, in a
 * sentence an operator can act on: a field missing or malformed (with what it should be), or the descriptor's
 * own `credentialsProblem` (a key of the other mode). Nothing is echoed of what was given: it may be a secret.
 */
export function checkCredentials<S extends CredentialsSchema>(
  descriptor: PspDescriptor<S>,
  credentials: unknown,
  mode: Mode,
): Checked<S> {
  const { displayName } = descriptor;
  if (descriptor.testModeOnly && mode !== 'test') {
    return { ok: false, problem: `${displayName} serves test mode only.` };
  }
  if (!descriptor.credentials) {
    return credentials === undefined || credentials === null
      ? { ok: true, credentials: {} as z.infer<S> }
      : { ok: false, problem: `${displayName} takes no credentials.` };
  }
  const schema = descriptor.credentials();
  const parsed = schema.safeParse(credentials ?? {});
  if (!parsed.success) {
    const shape = schema.shape as Record<string, z.ZodMiniType>;
    const fields = parsed.error.issues.map((issue) => {
      const field = String(issue.path[0] ?? '');
      const fieldSchema = shape[field];
      return fieldSchema ? `${field}: ${descriptionOf(fieldSchema)} (${issue.message})` : undefined;
    });
    return {
      ok: false,
      problem: fields.every((field) => field !== undefined)
        ? `A ${displayName} connection needs ${fields.join('; ')}`
        : `A ${displayName} connection needs its credentials as a JSON object.`,
    };
  }
  const problem = descriptor.credentialsProblem(parsed.data as z.infer<S>, mode);
  return problem ? { ok: false, problem } : { ok: true, credentials: parsed.data as z.infer<S> };
}

/**
 * A connection's stored credentials (JSON, or undefined when the secret is missing), checked. Undefined, not
 * JSON, or not an object reads as no credentials at all.
 */
export function parseStoredCredentials(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A field's description, on it or on the schema it makes optional. */
function descriptionOf(schema: z.ZodMiniType): string {
  const own = globalRegistry.get(schema)?.description;
  if (own) return own;
  const inner = (schema._zod.def as { innerType?: z.ZodMiniType }).innerType;
  return inner ? descriptionOf(inner) : '';
}
