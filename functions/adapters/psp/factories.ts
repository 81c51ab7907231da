import type { PspFactory } from '../../ports/psp.ts';
import type { CreatePspFactory } from '../../ports/psp-descriptor.ts';
import type { PspId } from './registry.ts';

/** What an adapter module exports for the registry (docs/orchestration.md#adding-a-psp). */
interface AdapterModule {
  createFactory: CreatePspFactory;
}

/**
 * A PSP's factory whose adapter module is loaded, with `import()`, when the factory is first asked for an adapter:
 * a cold start parses no PSP's adapter, and the first connection of a PSP loads its adapter and, when it builds
 * its first adapter, its SDK.
 */
const loadedWhenUsed =
  (load: () => Promise<AdapterModule>): CreatePspFactory =>
  (runtime): PspFactory => {
    let factory: Promise<PspFactory> | undefined;
    return {
      create(connection) {
        factory ??= load().then((module) => module.createFactory(runtime));
        return factory.then((loaded) => loaded.create(connection));
      },
    };
  };

/**
 * Each PSP's factory (the registry lists the PSPs, functions/adapters/psp/registry.ts). Only the functions that
 * talk to PSPs import this module, through functions/psp-dependencies.ts: esbuild makes a chunk of every
 * `import()` it meets, even one tree shaking drops, so a module every function reads (the registry) must hold
 * none (docs/performance.md#over-budget).
 */
export const PSP_FACTORIES: Record<PspId, CreatePspFactory> = {
  sandbox: loadedWhenUsed(() => import('./sandbox/adapter.ts')),
  stripe: loadedWhenUsed(() => import('./stripe/adapter.ts')),
  mollie: loadedWhenUsed(() => import('./mollie/adapter.ts')),
  adyen: loadedWhenUsed(() => import('./adyen/adapter.ts')),
  paypal: loadedWhenUsed(() => import('./paypal/adapter.ts')),
  checkout_com: loadedWhenUsed(() => import('./checkout-com/adapter.ts')),
  square: loadedWhenUsed(() => import('./square/adapter.ts')),
  paystack: loadedWhenUsed(() => import('./paystack/adapter.ts')),
  xendit: loadedWhenUsed(() => import('./xendit/adapter.ts')),
  cashfree: loadedWhenUsed(() => import('./cashfree/adapter.ts')),
  mercadopago: loadedWhenUsed(() => import('./mercadopago/adapter.ts')),
};
