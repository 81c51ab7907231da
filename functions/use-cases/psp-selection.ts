import { PspNotConfiguredError } from '../domain/errors.ts';
import type { PspSession } from '../domain/payment-link.ts';
import type { Mode } from '../domain/principal.ts';
import type { Psp, PspFactory } from '../ports/psp.ts';
import type { PspConfigRepository } from '../ports/psp-config-repository.ts';
import type { PspSessions } from './payment-links.ts';

/** The provider a test-mode (account, mode) gets when nothing is configured. */
export const DEFAULT_TEST_PROVIDER = 'sandbox';

/**
 * Which PSP serves an (account, mode): the one stored for it (`npm run psp -- set …`), else the sandbox in test
 * mode and none in live mode (live payments need the merchant's own PSP account). A test-only provider (the
 * sandbox) never serves live mode, whatever is stored.
 */
export class PspSelector implements PspSessions {
  private readonly configs: PspConfigRepository;
  private readonly factories: Map<string, PspFactory>;

  constructor(configs: PspConfigRepository, factories: readonly PspFactory[]) {
    this.configs = configs;
    this.factories = new Map(factories.map((factory) => [factory.provider, factory]));
  }

  factory(provider: string): PspFactory | undefined {
    return this.factories.get(provider);
  }

  /** Ends a session at the provider that created it (a provider no longer configured still ends its own). */
  async expireSession(account: string, mode: Mode, session: PspSession): Promise<void> {
    const factory = this.factories.get(session.provider);
    if (!factory) throw new Error(`No PSP adapter for provider ${session.provider}`);
    await (await factory.create(account, mode)).expireSession(session);
  }

  /** The PSP that creates checkout sessions for (account, mode); `PspNotConfiguredError` when there is none. */
  async forCheckout(account: string, mode: Mode): Promise<Psp> {
    const config = await this.configs.get(account, mode);
    const provider = config?.provider ?? (mode === 'test' ? DEFAULT_TEST_PROVIDER : undefined);
    const factory = provider === undefined ? undefined : this.factories.get(provider);
    if (!factory || (factory.testModeOnly && mode !== 'test')) throw new PspNotConfiguredError();
    return factory.create(account, mode);
  }
}
