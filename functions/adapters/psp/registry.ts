import { type CreatePspFactory, namesPsp, type PspDescriptor } from '../../ports/psp-descriptor.ts';
import { adyen } from './adyen-descriptor.ts';
import { createFactory as adyenFactory } from './adyen-psp.ts';
import { checkoutCom } from './checkout-descriptor.ts';
import { createFactory as checkoutComFactory } from './checkout-psp.ts';
import { createFactory as mercadopagoFactory } from './mercadopago/adapter.ts';
import { mercadopago } from './mercadopago/descriptor.ts';
import { mollie } from './mollie-descriptor.ts';
import { createFactory as mollieFactory } from './mollie-psp.ts';
import { paypal } from './paypal-descriptor.ts';
import { createFactory as paypalFactory } from './paypal-psp.ts';
import { createFactory as paystackFactory } from './paystack/adapter.ts';
import { paystack } from './paystack/descriptor.ts';
import { createFactory as sandboxFactory } from './sandbox/adapter.ts';
import { sandbox } from './sandbox/descriptor.ts';
import { createFactory as stripeFactory } from './stripe/adapter.ts';
import { stripe } from './stripe/descriptor.ts';

/**
 * The PSPs of the service: the one list (docs/orchestration.md#adding-a-psp). Nothing else names a PSP's id but
 * its own folder, generated files and docs (test/unit/psp-names.test.ts).
 */
export const PSP_DESCRIPTORS = [
  sandbox,
  stripe,
  mollie,
  adyen,
  paypal,
  checkoutCom,
  paystack,
  mercadopago,
] as const;

export type PspId = (typeof PSP_DESCRIPTORS)[number]['id'];

/**
 * Each PSP's factory, its adapter module's `createFactory`. The adapters are imported here, the PSPs' SDKs only by
 * each factory, with `import()`, when it builds its first adapter: a cold start parses no SDK, and a function
 * that never uses these (the merchant API reads only the descriptors) bundles no adapter, by tree shaking. An
 * `import()` of the adapters themselves would split what they share with every function (the domain's buyer
 * details, zod) into chunks whose code stays whole, and grew the merchant API's bundles by up to a third
 * (docs/performance.md#cold-start-no-psp-sdk-before-it-is-needed).
 */
export const PSP_FACTORIES: Record<PspId, CreatePspFactory> = {
  sandbox: sandboxFactory,
  stripe: stripeFactory,
  mollie: mollieFactory,
  adyen: adyenFactory,
  paypal: paypalFactory,
  checkout_com: checkoutComFactory,
  paystack: paystackFactory,
  mercadopago: mercadopagoFactory,
};

/** The registered ids, for the API's provider enum and the CLI's `--provider`. */
export const PSP_IDS: readonly PspId[] = /* @__PURE__ */ PSP_DESCRIPTORS.map((descriptor) => descriptor.id);

/** The descriptor of a provider (its id or a former id, an alias), or undefined. */
export const descriptorOf = (provider: string): PspDescriptor | undefined =>
  PSP_DESCRIPTORS.find((descriptor) => namesPsp(descriptor, provider));
