import type { z } from 'zod';
import type { PaymentLinkSchema } from '../../openapi/response-schemas.ts';
import { type PaymentLink, snapshotOf } from '../domain/payment-link.ts';
import { withCheckoutUrl } from '../use-cases/payment-links.ts';

/** The payment link as the API returns it: the documented schema's type (openapi/response-schemas.ts). */
export type PaymentLinkResource = z.infer<typeof PaymentLinkSchema>;

export function toResource(link: PaymentLink, checkoutBase: string, now: Date): PaymentLinkResource {
  return withCheckoutUrl(snapshotOf(link, now), checkoutBase);
}
