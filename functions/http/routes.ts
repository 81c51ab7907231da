/**
 * The HTTP routes: method, API Gateway path template and the handler file (functions/handlers/, without `.ts`)
 * that answers. lib/routes.ts wires each handler (permissions, timeouts, throttling) and checks that every handler
 * named here exists; the fallback function reads the table at run time to tell a 405 from a 404.
 */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** API Gateway path template, e.g. `/v1/payment-links/{id}`. */
  path: string;
  handler: string;
  /**
   * Called by buyers' browsers and PSPs rather than merchants' backends: throttled on its own with the public
   * limits (CDK context `publicThrottleRateLimit`, `publicThrottleBurstLimit`), so a flood of one route neither
   * shares the merchant routes' limit nor stops another public route.
   */
  public?: true;
}

export const routes = [
  { method: 'POST', path: '/v1/payment-links', handler: 'create-payment-link' },
  { method: 'GET', path: '/v1/payment-links/{id}', handler: 'get-payment-link' },
  { method: 'PATCH', path: '/v1/payment-links/{id}', handler: 'update-payment-link' },
  { method: 'GET', path: '/v1/payment-links/{id}/events', handler: 'list-payment-link-events' },
  { method: 'GET', path: '/v1/payment-links/{id}/payments', handler: 'list-payments' },
  { method: 'GET', path: '/v1/psp-connections', handler: 'list-psp-connections' },
  { method: 'GET', path: '/v1/psp-connections/{id}/performance', handler: 'get-connection-performance' },
  { method: 'GET', path: '/v1/routing', handler: 'get-routing' },
  { method: 'PUT', path: '/v1/routing', handler: 'put-routing' },
  { method: 'GET', path: '/v1/routing/uplift', handler: 'get-routing-uplift' },
  { method: 'GET', path: '/v1/checkout-settings', handler: 'get-checkout-settings' },
  { method: 'PUT', path: '/v1/checkout-settings', handler: 'put-checkout-settings' },
  { method: 'POST', path: '/v1/events/{id}/redeliver', handler: 'redeliver-event' },
  { method: 'GET', path: '/v1/events', handler: 'list-events' },
  { method: 'GET', path: '/v1/events/{id}', handler: 'get-event' },
  { method: 'POST', path: '/v1/webhook-endpoints', handler: 'create-webhook-endpoint' },
  { method: 'GET', path: '/v1/webhook-endpoints', handler: 'list-webhook-endpoints' },
  { method: 'GET', path: '/v1/webhook-endpoints/{id}', handler: 'get-webhook-endpoint' },
  { method: 'PATCH', path: '/v1/webhook-endpoints/{id}', handler: 'update-webhook-endpoint' },
  { method: 'DELETE', path: '/v1/webhook-endpoints/{id}', handler: 'delete-webhook-endpoint' },
  { method: 'POST', path: '/v1/webhook-endpoints/{id}/test', handler: 'test-webhook-endpoint' },
  { method: 'POST', path: '/v1/webhook-endpoints/{id}/recover', handler: 'recover-webhook-endpoint' },
  {
    method: 'POST',
    path: '/v1/webhook-endpoints/{id}/rotate-secret',
    handler: 'rotate-webhook-endpoint-secret',
  },
  { method: 'GET', path: '/checkout/{id}', handler: 'checkout-page', public: true },
  { method: 'HEAD', path: '/checkout/{id}', handler: 'checkout-page', public: true },
  // The buyer's chosen amount of a link with `amount_range` (docs/checkout.md#buyer-chosen-amounts).
  { method: 'POST', path: '/checkout/{id}', handler: 'checkout-page', public: true },
  { method: 'GET', path: '/checkout/{id}/complete', handler: 'checkout-page', public: true },
  { method: 'GET', path: '/checkout/{id}/qr.svg', handler: 'checkout-qr', public: true },
  { method: 'HEAD', path: '/checkout/{id}/qr.svg', handler: 'checkout-qr', public: true },
  {
    method: 'POST',
    path: '/psp/{provider}/notifications/{connection_id}',
    handler: 'psp-notifications',
    public: true,
  },
  { method: 'POST', path: '/psp/{provider}/notifications', handler: 'psp-notifications', public: true },
  { method: 'GET', path: '/sandbox/checkout/{id}', handler: 'sandbox-checkout', public: true },
  { method: 'POST', path: '/sandbox/checkout/{id}/pay', handler: 'sandbox-checkout', public: true },
  { method: 'POST', path: '/sandbox/checkout/{id}/decline', handler: 'sandbox-checkout', public: true },
  { method: 'GET', path: '/v1/payment-links', handler: 'list-payment-links' },
  { method: 'POST', path: '/v1/payment-links/{id}/cancel', handler: 'cancel-payment-link' },
  { method: 'POST', path: '/v1/payment-links/{id}/refunds', handler: 'create-refund' },
  { method: 'GET', path: '/v1/payment-links/{id}/refunds', handler: 'list-refunds' },
  { method: 'GET', path: '/v1/payments', handler: 'list-account-payments' },
  { method: 'GET', path: '/v1/payments/summary', handler: 'get-payment-summary' },
  { method: 'GET', path: '/v1/refunds', handler: 'list-account-refunds' },
  { method: 'GET', path: '/v1/settlements', handler: 'get-settlements' },
  { method: 'GET', path: '/v1/settlements/{id}', handler: 'get-settlements' },
  { method: 'DELETE', path: '/v1/payments/{id}/buyer', handler: 'erase-payment-buyer' },
  { method: 'GET', path: '/v1/account-settings', handler: 'get-account-settings' },
  { method: 'PUT', path: '/v1/account-settings', handler: 'put-account-settings' },
  { method: 'GET', path: '/v1/subscriptions', handler: 'list-subscriptions' },
  { method: 'GET', path: '/v1/subscriptions/{id}', handler: 'get-subscription' },
  { method: 'PATCH', path: '/v1/subscriptions/{id}', handler: 'update-subscription' },
  { method: 'POST', path: '/v1/subscriptions/{id}/cancel', handler: 'cancel-subscription' },
  { method: 'POST', path: '/v1/subscriptions/{id}/cancel-link', handler: 'create-subscription-cancel-link' },
  // Test mode's clock for one subscription (docs/subscriptions.md#time-under-test); a live key gets 404.
  { method: 'POST', path: '/v1/test-helpers/subscriptions/{id}/advance', handler: 'advance-subscription' },
  // A buyer's cancel link: our page, no sign-in (docs/subscriptions.md#cancel-links).
  { method: 'GET', path: '/subscriptions/cancel/{token}', handler: 'subscription-cancel-page', public: true },
  {
    method: 'POST',
    path: '/subscriptions/cancel/{token}',
    handler: 'subscription-cancel-page',
    public: true,
  },
  { method: 'GET', path: '/v1/openapi.json', handler: 'get-openapi' },
  // The merchant console (docs/console.md): server-rendered pages behind its own sign-in and session.
  { method: 'GET', path: '/console', handler: 'console' },
  { method: 'GET', path: '/console/sign-in', handler: 'console' },
  { method: 'POST', path: '/console/sign-in', handler: 'console' },
  { method: 'GET', path: '/console/auth/callback', handler: 'console' },
  { method: 'POST', path: '/console/sign-out', handler: 'console' },
  { method: 'POST', path: '/console/mode', handler: 'console' },
  { method: 'GET', path: '/console/links', handler: 'console' },
  { method: 'POST', path: '/console/links', handler: 'console' },
  { method: 'GET', path: '/console/links/new', handler: 'console' },
  { method: 'GET', path: '/console/search', handler: 'console' },
  { method: 'GET', path: '/console/links/{id}', handler: 'console' },
  { method: 'POST', path: '/console/links/{id}/cancel', handler: 'console' },
  { method: 'POST', path: '/console/links/{id}/refunds', handler: 'console' },
  { method: 'GET', path: '/console/links/{id}/payments/{payment_id}', handler: 'console' },
  { method: 'GET', path: '/console/links/{id}/payments/{payment_id}/refund', handler: 'console' },
  { method: 'GET', path: '/console/audit', handler: 'console' },
  { method: 'GET', path: '/console/exports', handler: 'console' },
  { method: 'POST', path: '/console/exports', handler: 'console' },
  { method: 'GET', path: '/console/payments', handler: 'console' },
  { method: 'GET', path: '/console/payments/{id}/erase', handler: 'console' },
  { method: 'POST', path: '/console/payments/{id}/erase', handler: 'console' },
  { method: 'GET', path: '/console/refunds', handler: 'console' },
  { method: 'GET', path: '/console/settlements', handler: 'console' },
  { method: 'POST', path: '/console/settlements/export', handler: 'console' },
  { method: 'GET', path: '/console/settlements/{id}', handler: 'console' },
  { method: 'POST', path: '/console/settlements/{id}/export', handler: 'console' },
  { method: 'GET', path: '/console/subscriptions', handler: 'console' },
  { method: 'GET', path: '/console/subscriptions/{id}', handler: 'console' },
  { method: 'GET', path: '/console/subscriptions/{id}/payments/{payment_id}', handler: 'console' },
  { method: 'GET', path: '/console/subscriptions/{id}/cancel', handler: 'console' },
  { method: 'POST', path: '/console/subscriptions/{id}/cancel', handler: 'console' },
  { method: 'GET', path: '/console/webhooks', handler: 'console' },
  { method: 'POST', path: '/console/webhooks', handler: 'console' },
  { method: 'GET', path: '/console/webhooks/{id}', handler: 'console' },
  { method: 'POST', path: '/console/webhooks/{id}/status', handler: 'console' },
  { method: 'POST', path: '/console/webhooks/{id}/rotate', handler: 'console' },
  { method: 'POST', path: '/console/webhooks/{id}/test', handler: 'console' },
  { method: 'POST', path: '/console/webhooks/{id}/recover', handler: 'console' },
  { method: 'GET', path: '/console/events/{id}', handler: 'console' },
  { method: 'POST', path: '/console/events/{id}/redeliver', handler: 'console' },
  { method: 'GET', path: '/console/psps', handler: 'console' },
  { method: 'POST', path: '/console/routing', handler: 'console' },
  { method: 'GET', path: '/console/settings', handler: 'console' },
  { method: 'POST', path: '/console/settings', handler: 'console' },
  { method: 'GET', path: '/console/keys', handler: 'console' },
  // Its charts are drawn by Vega, which the console function does not carry (docs/performance.md#bundles).
  { method: 'GET', path: '/console/overview', handler: 'console-overview' },
  { method: 'POST', path: '/console/keys', handler: 'console' },
  { method: 'POST', path: '/console/keys/{id}/revoke', handler: 'console' },
] as const satisfies readonly RouteDefinition[];

/** Paths we serve, each with the methods it allows: anything else on them is a 405 with `Allow`. */
export function allowedMethodsByPath(): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  return byPath;
}
