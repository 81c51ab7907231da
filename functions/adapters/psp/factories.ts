import type { PspFactory } from '../../ports/psp.ts';
import type { CreatePspFactory, PspDescriptor, PspRuntime } from '../../ports/psp-descriptor.ts';
import { adyen } from './adyen/descriptor.ts';
import { cashfree } from './cashfree/descriptor.ts';
import { checkoutCom } from './checkout-com/descriptor.ts';
import { mercadopago } from './mercadopago/descriptor.ts';
import { mollie } from './mollie/descriptor.ts';
import { paypal } from './paypal/descriptor.ts';
import { paystack } from './paystack/descriptor.ts';
import type { PspId } from './registry.ts';
import { sandbox } from './sandbox/descriptor.ts';
import { square } from './square/descriptor.ts';
import { stripe } from './stripe/descriptor.ts';
import { xendit } from './xendit/descriptor.ts';

/**
 * What an adapter module exports for the registry (docs/orchestration.md#adding-a-psp): its factory, given its
 * PSP's descriptor. The module never imports its descriptor as a value: if it did, esbuild would put each
 * descriptor, reached both from every function's cold path and from its adapter's chunk, in a chunk of its own,
 * one more file for a cold start to read (docs/performance.md#over-budget).
 */
interface AdapterModule<D extends PspDescriptor> {
  createFactory(runtime: PspRuntime, descriptor: D): PspFactory;
}

/**
 * A PSP's factory whose adapter module is loaded, with `import()`, when the factory is first asked for an adapter:
 * a cold start parses no PSP's adapter, and the first connection of a PSP loads its adapter and, when it builds
 * its first adapter, its SDK.
 */
const loadedWhenUsed =
  <D extends PspDescriptor>(descriptor: D, load: () => Promise<AdapterModule<D>>): CreatePspFactory =>
  (runtime): PspFactory => {
    let factory: Promise<PspFactory> | undefined;
    return {
      create(connection) {
        factory ??= load().then((module) => module.createFactory(runtime, descriptor));
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
  sandbox: loadedWhenUsed(sandbox, () => import('./sandbox/adapter.ts')),
  stripe: loadedWhenUsed(stripe, () => import('./stripe/adapter.ts')),
  mollie: loadedWhenUsed(mollie, () => import('./mollie/adapter.ts')),
  adyen: loadedWhenUsed(adyen, () => import('./adyen/adapter.ts')),
  paypal: loadedWhenUsed(paypal, () => import('./paypal/adapter.ts')),
  checkout_com: loadedWhenUsed(checkoutCom, () => import('./checkout-com/adapter.ts')),
  square: loadedWhenUsed(square, () => import('./square/adapter.ts')),
  paystack: loadedWhenUsed(paystack, () => import('./paystack/adapter.ts')),
  xendit: loadedWhenUsed(xendit, () => import('./xendit/adapter.ts')),
  cashfree: loadedWhenUsed(cashfree, () => import('./cashfree/adapter.ts')),
  mercadopago: loadedWhenUsed(mercadopago, () => import('./mercadopago/adapter.ts')),
};
