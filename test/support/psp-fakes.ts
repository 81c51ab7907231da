import { PSP_FACTORIES } from '../../functions/adapters/psp/factories.ts';
import { checkCredentials } from '../../functions/adapters/psp/kit/credentials.ts';
import type { PspId } from '../../functions/adapters/psp/registry.ts';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import { canHoldMandates, type Psp, type PspFactory } from '../../functions/ports/psp.ts';
import {
  canCaptureLater,
  canEndSessions,
  canListPayouts,
  canRefund,
  canVoidAuthorizations,
} from '../../functions/ports/psp-capabilities.ts';
import {
  CAPABILITIES,
  type Capability,
  type PspDescriptor,
  type PspRuntime,
} from '../../functions/ports/psp-descriptor.ts';

/**
 * What the tests need of a PSP's fake, whatever the PSP (each PSP's folder exports one from its `test/fake.ts`):
 * its credentials and how to start it. The conformance fixture of a PSP (its `test/conformance.ts`) builds on it.
 */
export interface PspFakeDefinition<F extends RunningPspFake = RunningPspFake> {
  /** Its PSP's id. */
  readonly provider: string;
  /** Credentials the fake accepts, in the PSP's own format (what `npm run psp -- add` stores for a connection). */
  readonly credentials: Readonly<Record<string, string>>;
  start(): Promise<F>;
}

export interface RunningPspFake {
  /** What its PSP's `<ID>_API_URL` is set to, so that its adapter calls the fake. */
  readonly apiUrl: string;
  stop(): Promise<void>;
}

/** The fake a definition starts. */
export type FakeOf<D> = D extends PspFakeDefinition<infer F> ? F : never;

/** The setting that points a PSP's adapter at its fake: `<ID>_API_URL` (functions/config.ts `pspApiUrls`). */
export const apiUrlSetting = (provider: string): string => `${provider.toUpperCase()}_API_URL`;

/** What a PSP's factory is handed in a test: an in-memory secret store, and its fake's address. */
export function testPspRuntime(options: {
  secrets?: ReadonlyMap<string, string>;
  apiUrl?: string | undefined;
}): PspRuntime {
  const unused = (): never => {
    throw new Error('The sandbox is not part of this test.');
  };
  return {
    secrets: { get: async (name) => options.secrets?.get(name) },
    apiUrl: options.apiUrl,
    baseUrl: 'http://localhost',
    now: () => new Date(),
    sandbox: { sessions: unused, signingSecret: unused, mandates: unused },
  };
}

/**
 * The adapter of `connection` as the service builds it (the registry's factory of its PSP, the
 * credentials checked by the descriptor), with `credentials` stored under its `secret_name` and its calls sent
 * to `apiUrl`.
 */
export async function adapterOf<P extends Psp = Psp>(
  connection: PspConnection,
  credentials: Readonly<Record<string, string>>,
  apiUrl: string | undefined,
): Promise<P> {
  const createFactory = PSP_FACTORIES[connection.provider as PspId];
  const secrets = new Map([[connection.secret_name as string, JSON.stringify(credentials)]]);
  return (await createFactory(testPspRuntime({ secrets, apiUrl })).create(connection)) as P;
}

/**
 * A PSP's factory (its `PSP_FACTORIES` entry: its adapter module's `createFactory` handed its descriptor) as a
 * test builds adapters with it: an in-memory secret store (read when an adapter is built, so a test may change it)
 * and its fake's address; each adapter typed as the PSP's own class, whose capabilities the test calls.
 */
export function factoryOf<P extends Psp>(
  createFactory: (runtime: PspRuntime) => PspFactory,
  options: { secrets?: ReadonlyMap<string, string>; apiUrl?: string | undefined },
): { create(connection: PspConnection): Promise<P> } {
  const factory = createFactory(testPspRuntime(options));
  return { create: async (connection) => (await factory.create(connection)) as P };
}

/** What a PSP's descriptor says is wrong with credentials for a connection of `mode`, or undefined. */
export function credentialsProblemOf(
  descriptor: PspDescriptor,
  credentials: unknown,
  mode: Mode,
): string | undefined {
  const checked = checkCredentials(descriptor, credentials, mode);
  return checked.ok ? undefined : checked.problem;
}

/**
 * The capabilities an adapter has by its interfaces (functions/ports/psp-capabilities.ts), in the order of
 * `CAPABILITIES`: a PSP's tests compare them with what its descriptor declares.
 */
export function interfaceCapabilities(psp: Psp): Capability[] {
  const has: Partial<Record<Capability, boolean>> = {
    ends_sessions: canEndSessions(psp),
    captures_later: canCaptureLater(psp),
    voids_authorizations: canVoidAuthorizations(psp),
    refunds: canRefund(psp),
    holds_mandates: canHoldMandates(psp),
    lists_payouts: canListPayouts(psp),
  };
  return CAPABILITIES.filter((capability) => has[capability] === true);
}

/** What a descriptor declares of the capabilities an adapter has by its interfaces (`interfaceCapabilities`). */
export const declaredInterfaces = (descriptor: PspDescriptor): Capability[] =>
  CAPABILITIES.filter(
    (capability) =>
      [
        'ends_sessions',
        'captures_later',
        'voids_authorizations',
        'refunds',
        'holds_mandates',
        'lists_payouts',
      ].includes(capability) && descriptor.capabilities.includes(capability),
  );
