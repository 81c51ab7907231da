import { namesPsp, type PspDescriptor } from '../../ports/psp-descriptor.ts';
import { adyen, identity as adyenIdentity } from './adyen/descriptor.ts';
import { cashfree, identity as cashfreeIdentity } from './cashfree/descriptor.ts';
import { checkoutCom, identity as checkoutComIdentity } from './checkout-com/descriptor.ts';
import { mercadopago, identity as mercadopagoIdentity } from './mercadopago/descriptor.ts';
import { mollie, identity as mollieIdentity } from './mollie/descriptor.ts';
import { paypal, identity as paypalIdentity } from './paypal/descriptor.ts';
import { paystack, identity as paystackIdentity } from './paystack/descriptor.ts';
import { sandbox, identity as sandboxIdentity } from './sandbox/descriptor.ts';
import { square, identity as squareIdentity } from './square/descriptor.ts';
import { stripe, identity as stripeIdentity } from './stripe/descriptor.ts';
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

/** The registered ids, for the API's provider enum and the CLI's `--provider`. */
export const PSP_IDS: readonly PspId[] = /* @__PURE__ */ PSP_IDENTITIES.map((identity) => identity.id);

/** The descriptor of a provider (its id or a former id, an alias), or undefined. */
export const descriptorOf = (provider: string): PspDescriptor | undefined =>
  PSP_DESCRIPTORS.find((descriptor) => namesPsp(descriptor, provider));
