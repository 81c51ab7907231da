/**
 * The surfaces of the service, and which one each function belongs to: the CDK stack builds each surface's
 * functions in a nested stack of its own (`SurfaceStack`, lib/constructs/service-functions.ts), so that no CloudFormation stack
 * reaches its 500 resources (docs/operations.md#stack-size). Pure data, read by the CDK stack only: the local
 * stack runs every function in one process whatever its surface.
 *
 * A new function names its surface here (the compiler refuses a handler without one); a new surface is a line in
 * `SURFACES`, and its first functions deploy in a nested stack of their own.
 */
import type { HandlerName } from './routes.ts';

/** Each surface, by the id of its nested stack, with what it holds. */
export const SURFACES = {
  Links:
    'the payment links API: links, their payments, refunds and events, their expiry; the OpenAPI document and the fallback of unknown routes',
  Checkout:
    "the buyer's side: checkout pages, the sandbox PSP, PSP notifications and the sweeper that asks PSPs what they did not tell",
  Webhooks: 'webhook endpoints and the event feed, the outbox sweeper and webhook delivery',
  Books:
    "the books (payments and refunds of an account), the PSPs' payouts matched to them, buyers' personal data and its retention",
  Connections: 'PSP connections, routing and checkout settings',
  Console: 'the merchant console',
  Subscriptions:
    "subscriptions: their API, the sweeper that charges renewals, the test clock and the buyer's cancel page",
} as const;

export type Surface = keyof typeof SURFACES;

/** The surface each function of lib/routes.ts is deployed with. */
export const surfaceOf: Record<HandlerName, Surface> = {
  'create-payment-link': 'Links',
  'get-payment-link': 'Links',
  'list-payment-links': 'Links',
  'update-payment-link': 'Links',
  'cancel-payment-link': 'Links',
  'expire-links': 'Links',
  'list-payment-link-events': 'Links',
  'create-refund': 'Links',
  'list-refunds': 'Links',
  'list-payments': 'Links',
  'get-openapi': 'Links',
  'route-fallback': 'Links',
  'checkout-page': 'Checkout',
  'checkout-qr': 'Checkout',
  'sandbox-checkout': 'Checkout',
  'psp-notifications': 'Checkout',
  'check-pending-at-psps': 'Checkout',
  'create-webhook-endpoint': 'Webhooks',
  'list-webhook-endpoints': 'Webhooks',
  'get-webhook-endpoint': 'Webhooks',
  'update-webhook-endpoint': 'Webhooks',
  'delete-webhook-endpoint': 'Webhooks',
  'rotate-webhook-endpoint-secret': 'Webhooks',
  'test-webhook-endpoint': 'Webhooks',
  'recover-webhook-endpoint': 'Webhooks',
  'list-events': 'Webhooks',
  'get-event': 'Webhooks',
  'redeliver-event': 'Webhooks',
  'outbox-sweeper': 'Webhooks',
  'deliver-webhook': 'Webhooks',
  'list-account-payments': 'Books',
  'get-payment-summary': 'Books',
  'get-settlements': 'Books',
  'sweep-settlements': 'Books',
  'list-account-refunds': 'Books',
  'erase-payment-buyer': 'Books',
  'erase-expired-buyer-details': 'Books',
  'get-account-settings': 'Books',
  'put-account-settings': 'Books',
  'list-psp-connections': 'Connections',
  'get-connection-performance': 'Connections',
  'get-routing': 'Connections',
  'put-routing': 'Connections',
  'get-routing-uplift': 'Connections',
  'get-checkout-settings': 'Connections',
  'put-checkout-settings': 'Connections',
  console: 'Console',
  'console-overview': 'Console',
  'list-subscriptions': 'Subscriptions',
  'get-subscription': 'Subscriptions',
  'update-subscription': 'Subscriptions',
  'cancel-subscription': 'Subscriptions',
  'create-subscription-cancel-link': 'Subscriptions',
  'subscription-cancel-page': 'Subscriptions',
  'charge-subscriptions': 'Subscriptions',
  'advance-subscription': 'Subscriptions',
};
