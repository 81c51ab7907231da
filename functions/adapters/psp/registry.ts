import { type CreatePspFactory, namesPsp, type PspDescriptor } from '../../ports/psp-descriptor.ts';
import { createFactory as adyenFactory } from './adyen/adapter.ts';
import { adyen, identity as adyenIdentity } from './adyen/descriptor.ts';
import { createFactory as cashfreeFactory } from './cashfree/adapter.ts';
import { cashfree, identity as cashfreeIdentity } from './cashfree/descriptor.ts';
import { createFactory as checkoutComFactory } from './checkout-com/adapter.ts';
import { checkoutCom, identity as checkoutComIdentity } from './checkout-com/descriptor.ts';
import { createFactory as mercadopagoFactory } from './mercadopago/adapter.ts';
import { mercadopago, identity as mercadopagoIdentity } from './mercadopago/descriptor.ts';
import { createFactory as mollieFactory } from './mollie/adapter.ts';
import { mollie, identity as mollieIdentity } from './mollie/descriptor.ts';
import { createFactory as paypalFactory } from './paypal/adapter.ts';
import { paypal, identity as paypalIdentity } from './paypal/descriptor.ts';
import { createFactory as paystackFactory } from './paystack/adapter.ts';
import { paystack, identity as paystackIdentity } from './paystack/descriptor.ts';
import { createFactory as sandboxFactory } from './sandbox/adapter.ts';
import { sandbox, identity as sandboxIdentity } from './sandbox/descriptor.ts';
import { createFactory as squareFactory } from './square/adapter.ts';
import { square, identity as squareIdentity } from './square/descriptor.ts';
import { createFactory as stripeFactory } from './stripe/adapter.ts';
import { stripe, identity as stripeIdentity } from './stripe/descriptor.ts';
import { createFactory as xenditFactory } from './xendit/adapter.ts';
import { xendit, identity as xenditIdentity } from './xendit/descriptor.ts';

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
  square,
  paystack,
  xendit,
  cashfree,
  mercadopago,
] as const;

/**
 * Each PSP's id and former ids, in the order of `PSP_DESCRIPTORS` (test/unit/psp-kit.test.ts): what the item
 * decoders and the API's provider enum need. Importing these and not the descriptors keeps the descriptors (their
 * amount tables, credential schemas and texts) out of every function that only reads stored items.
 */
export const PSP_IDENTITIES = [
  sandboxIdentity,
  stripeIdentity,
  mollieIdentity,
  adyenIdentity,
  paypalIdentity,
  checkoutComIdentity,
  squareIdentity,
  paystackIdentity,
  xenditIdentity,
  cashfreeIdentity,
  mercadopagoIdentity,
] as const;

export type PspId = (typeof PSP_IDENTITIES)[number]['id'];

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
  square: squareFactory,
  paystack: paystackFactory,
  xendit: xenditFactory,
  cashfree: cashfreeFactory,
  mercadopago: mercadopagoFactory,
};

/** The registered ids, for the API's provider enum and the CLI's `--provider`. */
export const PSP_IDS: readonly PspId[] = /* @__PURE__ */ PSP_IDENTITIES.map((identity) => identity.id);

/** The descriptor of a provider (its id or a former id, an alias), or undefined. */
export const descriptorOf = (provider: string): PspDescriptor | undefined =>
  PSP_DESCRIPTORS.find((descriptor) => namesPsp(descriptor, provider));
