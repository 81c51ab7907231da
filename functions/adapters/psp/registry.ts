import type { PspAdapterModule, PspDescriptor } from '../../ports/psp-descriptor.ts';
import { adyen } from './adyen-descriptor.ts';
import { checkoutCom } from './checkout-descriptor.ts';
import { mollie } from './mollie-descriptor.ts';
import { paypal } from './paypal-descriptor.ts';
import { sandbox } from './sandbox/descriptor.ts';
import { stripe } from './stripe/descriptor.ts';

/**
 * The PSPs of the service: the one list (docs/orchestration.md#adding-a-psp). Nothing else names a PSP's id but
 * its own folder, generated files and docs (test/unit/psp-names.test.ts).
 */
export const PSP_DESCRIPTORS = [sandbox, stripe, mollie, adyen, paypal, checkoutCom] as const;

export type PspId = (typeof PSP_DESCRIPTORS)[number]['id'];

/**
 * Each PSP's adapter module, loaded on the first use of one of its connections (a dynamic `import()`: a function
 * parses a PSP's adapter and SDK only when it serves that PSP). Apart from the descriptors so that a function which
 * reads the descriptors but talks to no PSP (the merchant API's connection listings) bundles no adapter at all.
 */
export const PSP_ADAPTERS: Record<PspId, () => Promise<PspAdapterModule>> = {
  sandbox: () => import('./sandbox/adapter.ts'),
  stripe: () => import('./stripe/adapter.ts'),
  mollie: () => import('./mollie-psp.ts'),
  adyen: () => import('./adyen-psp.ts'),
  paypal: () => import('./paypal-psp.ts'),
  checkout_com: () => import('./checkout-psp.ts'),
};

/** The registered ids, for the API's provider enum and the CLI's `--provider`. */
export const PSP_IDS: readonly PspId[] = PSP_DESCRIPTORS.map((descriptor) => descriptor.id);

/** A provider as stored or addressed (an id, or a former id of one: its alias), as the id of its PSP; else as is. */
export function canonicalProvider(provider: string): string {
  return (
    PSP_DESCRIPTORS.find((descriptor) => descriptor.id === provider || descriptor.aliases?.includes(provider))
      ?.id ?? provider
  );
}

/** The descriptor of a provider (its id or an alias), or undefined. */
export const descriptorOf = (provider: string): PspDescriptor | undefined =>
  PSP_DESCRIPTORS.find((descriptor) => descriptor.id === canonicalProvider(provider));
