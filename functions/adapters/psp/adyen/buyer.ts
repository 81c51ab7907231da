import type { Address } from '@adyen/api-library/lib/src/typings/checkout/address.js';
import type { PaymentLinkRequest } from '@adyen/api-library/lib/src/typings/checkout/paymentLinkRequest.js';
import type { PaymentLinkResponse } from '@adyen/api-library/lib/src/typings/checkout/paymentLinkResponse.js';
import type { BuyerDetail, BuyerDetails } from '../../../domain/buyer.ts';
import { buyerDetails } from '../../../domain/buyer-details.ts';
import type { SessionRequest } from '../../../ports/psp.ts';

/**
 * Who pays at Adyen: the shopper fields a payment link asks (`requiredShopperFields`, Adyen/adyen-openapi
 * CheckoutService-v72 `PaymentLinkRequest`) and the answers read back from the link (`GET /paymentLinks/{id}`).
 */

/** Each detail as Adyen's page asks it; an address comes with the shopper's name, as our page asks it. */
type ShopperField = NonNullable<PaymentLinkRequest['requiredShopperFields']>[number];
const SHOPPER_FIELDS: Partial<Record<BuyerDetail, `${ShopperField}`[]>> = {
  email: ['shopperEmail'],
  phone: ['telephoneNumber'],
  billing_address: ['billingAddress', 'shopperName'],
};

/** Adyen's `shopperReference` is 3 to 256 characters: a shorter reference stays on our payment only. */
const MIN_SHOPPER_REFERENCE_LENGTH = 3;

/**
 * The shopper fields of a payment link: what checkout gives Adyen's page to ask (`SessionRequest.pageAsks`), the e-mail
 * prefilled from the address and the buyer's reference as `shopperReference`.
 */
export function adyenShopperFields({ references, pageAsks }: SessionRequest) {
  const fields = (pageAsks ?? []).flatMap((detail) => SHOPPER_FIELDS[detail] ?? []);
  const reference = references?.client_reference_id;
  return {
    ...(fields.length > 0 ? { requiredShopperFields: fields as ShopperField[] } : {}),
    ...(references?.prefilled_email ? { shopperEmail: references.prefilled_email } : {}),
    ...(reference && reference.length >= MIN_SHOPPER_REFERENCE_LENGTH ? { shopperReference: reference } : {}),
  };
}

/**
 * What the shopper gave on Adyen's page: only the fields the link required (others are what we sent, such as a
 * prefilled e-mail the shopper never confirmed).
 */
export async function adyenBuyer(paymentLink: PaymentLinkResponse): Promise<{ buyer?: BuyerDetails }> {
  const asked = new Set<string>(paymentLink.requiredShopperFields ?? []);
  const name = paymentLink.shopperName;
  const buyer = await buyerDetails({
    email: asked.has('shopperEmail') ? paymentLink.shopperEmail : undefined,
    phone: asked.has('telephoneNumber') ? paymentLink.telephoneNumber : undefined,
    name: asked.has('shopperName') && name ? `${name.firstName} ${name.lastName}` : undefined,
    billing_address: asked.has('billingAddress') ? adyenAddress(paymentLink.billingAddress) : undefined,
    shipping_address: asked.has('deliveryAddress') ? adyenAddress(paymentLink.deliveryAddress) : undefined,
  });
  return buyer ? { buyer } : {};
}

/** Adyen keeps the street and the house number apart; our first line is both, as written in most of Europe. */
const adyenAddress = (address: Address | null | undefined) =>
  address && {
    line1: [address.street, address.houseNumberOrName].filter(Boolean).join(' '),
    city: address.city,
    postal_code: address.postalCode,
    state: address.stateOrProvince,
    country: address.country,
  };
