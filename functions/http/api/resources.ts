import type { z } from 'zod';
import type { CheckoutSettings } from '../../domain/checkout-settings.ts';
import { snapshotOf } from '../../domain/link-events.ts';
import type { PaymentLink } from '../../domain/payment-link.ts';
import { withCheckoutUrl } from '../../use-cases/link-transitions.ts';
import type {
  EventLogSchema,
  PaymentLinkListSchema,
  PaymentLinkSchema,
  RedeliverySchema,
} from './response-schemas.ts';

/** The payment link as the API returns it: the documented schema's type (response-schemas.ts). */
export type PaymentLinkResource = z.infer<typeof PaymentLinkSchema>;
export type PaymentLinkListResource = z.infer<typeof PaymentLinkListSchema>;
export type EventLogResource = z.infer<typeof EventLogSchema>;
export type RedeliveryResource = z.infer<typeof RedeliverySchema>;

/**
 * The API's view of a link: its snapshot (what webhooks carry too) plus the order details a webhook leaves out,
 * `line_items`, `payment_methods`, `collect` and `custom_fields`, so that every webhook stays under 20 KB (docs/webhooks.md#the-request).
 */
export function toResource(link: PaymentLink, checkoutBase: string, now: Date): PaymentLinkResource {
  return {
    ...withCheckoutUrl(snapshotOf(link, now), checkoutBase),
    line_items:
      link.line_items?.map((item) => ({
        ...item,
        tax_rate: item.tax_rate ?? null,
        adjustable_quantity: item.adjustable_quantity ?? null,
      })) ?? null,
    payment_methods: link.payment_methods,
    collect: link.collect,
    custom_fields: link.custom_fields,
  };
}

/** The branding as the API shows it: the settings without the tenant's keys. */
export function settingsResource(settings: CheckoutSettings) {
  return {
    object: 'checkout_settings' as const,
    mode: settings.mode,
    display_name: settings.display_name,
    logo_url: settings.logo_url,
    accent_color: settings.accent_color,
    support_email: settings.support_email,
    updated_at: settings.updated_at,
  };
}
