import type Stripe from 'stripe';
import type { BuyerDetails } from '../../../domain/buyer.ts';
import { buyerDetails } from '../../../domain/buyer-details.ts';
import type { SessionRequest } from '../../../ports/psp.ts';

/** Who pays at Stripe: the buyer questions of a Checkout Session and the answers read back from it. */

/** The link a session is for: `metadata.link_id`; sessions created before it name it in `client_reference_id`. */
export const stripeLinkId = (session: Stripe.Checkout.Session): string | null =>
  session.metadata?.link_id ?? session.client_reference_id;

/**
 * What Stripe Checkout asks the buyer beside the e-mail it always asks (its descriptor's `pageAsks`): the details of the link's
 * `collect` that checkout gives it to ask (`SessionRequest.pageAsks`), and the e-mail prefilled from the address.
 */
export function stripeBuyerQuestions({ link, references, pageAsks }: SessionRequest) {
  const asks = new Set(pageAsks);
  const countries = link.collect?.shipping_address?.countries;
  return {
    ...(references?.prefilled_email ? { customer_email: references.prefilled_email } : {}),
    ...(asks.has('phone') ? { phone_number_collection: { enabled: true } } : {}),
    ...(asks.has('billing_address') ? { billing_address_collection: 'required' as const } : {}),
    ...(asks.has('shipping_address') && countries
      ? {
          shipping_address_collection: {
            allowed_countries:
              countries as Stripe.Checkout.SessionCreateParams.ShippingAddressCollection.AllowedCountry[],
          },
        }
      : {}),
  };
}

/**
 * What the buyer gave on Stripe's page: `customer_details` (e-mail, name, phone, billing address) and the shipping
 * details Stripe collected (`collected_information.shipping_details`).
 */
export async function stripeBuyer(session: Stripe.Checkout.Session): Promise<{ buyer?: BuyerDetails }> {
  const customer = session.customer_details;
  const shipping = session.collected_information?.shipping_details;
  const buyer = await buyerDetails({
    email: customer?.email,
    name: customer?.name ?? shipping?.name,
    phone: customer?.phone,
    billing_address: customer?.address && stripeAddress(customer.address),
    shipping_address: shipping?.address && stripeAddress(shipping.address),
  });
  return buyer ? { buyer } : {};
}

const stripeAddress = (address: Stripe.Address) => ({
  line1: address.line1,
  line2: address.line2,
  city: address.city,
  postal_code: address.postal_code,
  state: address.state,
  country: address.country,
});
