import { afterAll, beforeAll } from 'vitest';
import type { PspConnection } from '../../functions/domain/connection.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import {
  canEndSessions,
  canRefund,
  type EndsSessions,
  type Refunds,
} from '../../functions/ports/psp-capabilities.ts';
import { trustFakePspCertificate } from './fake-psp-server.ts';
import { adapterOf, type FakeOf, type PspFakeDefinition } from './psp-fakes.ts';
import { storedConnection } from './psp-fixtures.ts';

/**
 * One fixture for tests of the adapters themselves (no stack): each named PSP's adapter, through its official
 * SDK, against its fake (`fakes`, each PSP's `test/fake.ts`), with one stored test-mode connection each. The
 * hosted-page PSPs these tests use end sessions and refund: an adapter that cannot is refused when built.
 */
// biome-ignore lint/suspicious/noExplicitAny: each fake is its own type, kept by `FakeOf`.
type Fakes = Record<string, PspFakeDefinition<any>>;

export type HostedPsp = Psp & EndsSessions & Refunds;

/**
 * The adapters of one test file: started before its tests and stopped after them. The objects returned are
 * filled in when the file starts, so tests read `fakes.<name>` and `psps.<name>` as they run. The connections are
 * named after the file (`tag`), so that logs tell them apart.
 */
export function usePspAdapters<const F extends Fakes>(tag: string, definitions: F) {
  const names = Object.keys(definitions) as (keyof F & string)[];
  const connections = Object.fromEntries(
    names.map((name) => [
      name,
      storedConnection(definitions[name]?.provider as string, 'test', `pc_${name}${tag}`.padEnd(28, '0')),
    ]),
  ) as Record<keyof F, PspConnection>;
  const fakes = {} as { [P in keyof F]: FakeOf<F[P]> };
  const psps = {} as Record<keyof F, HostedPsp>;
  let stop = async () => {};
  beforeAll(async () => {
    const untrust = trustFakePspCertificate();
    for (const name of names) {
      const definition = definitions[name] as PspFakeDefinition;
      const fake = await definition.start();
      const psp = await adapterOf(connections[name], definition.credentials, fake.apiUrl);
      if (!canEndSessions(psp) || !canRefund(psp))
        throw new Error(`${name} neither ends sessions nor refunds`);
      Object.assign(fakes, { [name]: fake });
      Object.assign(psps, { [name]: psp });
    }
    stop = async () => {
      await Promise.all(names.map((name) => (fakes[name] as { stop(): Promise<void> }).stop()));
      untrust();
    };
  });
  afterAll(() => stop());
  return { connections, fakes, psps };
}
