import type { OrdersController, PaymentsController, VaultController } from '@paypal/paypal-server-sdk';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import { messageOf } from '../kit/calls.ts';

/** PayPal's two environments and the API origin of each (the SDK's `Environment`). */
export const PAYPAL_ENVIRONMENTS = ['sandbox', 'live'] as const;
export type PaypalEnvironment = (typeof PAYPAL_ENVIRONMENTS)[number];

export const PAYPAL_API_ORIGINS: Record<PaypalEnvironment, string> = {
  sandbox: 'https://api-m.sandbox.paypal.com',
  live: 'https://api-m.paypal.com',
};

/** A connection's stored credentials (docs/orchestration.md#paypal). */
export interface PaypalCredentials {
  client_id: string;
  client_secret: string;
  /** The id PayPal gave the webhook that calls our notification address: its verification call needs it. */
  webhook_id: string;
  /** `sandbox` for a test-mode connection, `live` for a live one; absent: the mode's. */
  environment: PaypalEnvironment;
}

/** The SDK's controllers for one connection, and what its webhook verification needs besides. */
export interface PaypalClient {
  orders: OrdersController;
  payments: PaymentsController;
  /** Vault v3: the payment tokens a subscription's renewals are charged to (functions/adapters/psp/paypal/mandates.ts). */
  vault: VaultController;
  /** PayPal's verification call (`POST /v1/notifications/verify-webhook-signature`), see `verifyWebhookSignature`. */
  verify(body: string): Promise<{ status: number; verification_status?: unknown }>;
}

/**
 * The `fetch` the SDK and the verification call use: the global one, or, with `apiUrl` (tests: a PayPal-speaking
 * server, `PAYPAL_API_URL`), one that sends every PayPal request to that origin, paths unchanged. The SDK has no
 * base-URL option (its two environments are fixed origins), but its HTTP client (axios) takes a `fetch` of ours.
 */
export function paypalFetch(apiUrl: string | undefined): typeof fetch {
  if (!apiUrl) return fetch;
  const target = new URL(apiUrl);
  return (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    url.protocol = target.protocol;
    url.host = target.host;
    return fetch(new Request(url, request));
  };
}

/**
 * Builds the SDK's client for one connection: OAuth 2 client credentials (the SDK fetches and renews the token),
 * the connection's environment, one try bounded by the PSP call budget. Loaded here, not at module scope: only
 * functions that talk to PayPal evaluate the SDK (docs/performance.md).
 */
export async function createPaypalClient(
  credentials: PaypalCredentials,
  apiUrl: string | undefined,
): Promise<PaypalClient> {
  const { Client, Environment, OrdersController, PaymentsController, VaultController } = await import(
    '@paypal/paypal-server-sdk'
  );
  const fetchImpl = paypalFetch(apiUrl);
  const client = new Client({
    clientCredentialsAuthCredentials: {
      oAuthClientId: credentials.client_id,
      oAuthClientSecret: credentials.client_secret,
    },
    environment: credentials.environment === 'live' ? Environment.Production : Environment.Sandbox,
    timeout: CALL_BUDGETS.psp.timeoutMs,
    httpClientOptions: { retryConfig: { maxNumberOfRetries: CALL_BUDGETS.psp.tries - 1 } },
    unstable_httpClientOptions: { adapter: 'fetch', env: { fetch: fetchImpl } },
  });
  const origin = PAYPAL_API_ORIGINS[credentials.environment];
  let token: Awaited<ReturnType<typeof client.clientCredentialsAuthManager.fetchToken>> | undefined;
  return {
    orders: new OrdersController(client),
    payments: new PaymentsController(client),
    vault: new VaultController(client),
    // The SDK (2.5) has no notifications controller: PayPal's documented REST call, with the SDK's own token.
    async verify(body) {
      token = await client.clientCredentialsAuthManager.updateToken(token);
      const response = await fetchImpl(`${origin}/v1/notifications/verify-webhook-signature`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.accessToken}`, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(CALL_BUDGETS.psp.timeoutMs),
      });
      const answer = (await response.json().catch(() => ({}))) as { verification_status?: unknown };
      return { status: response.status, verification_status: answer.verification_status };
    },
  };
}

/** The transmission headers PayPal signs a webhook delivery with, lower-cased as they arrive. */
const TRANSMISSION_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

/**
 * The body of PayPal's verification call for one delivery, or undefined when a header it needs is missing. The
 * event goes in as the exact bytes received (`webhook_event`), never parsed and serialized again: PayPal checks
 * its signature over what it sent.
 */
export function verificationBody(
  rawBody: string,
  headers: Record<string, string | undefined>,
  webhookId: string,
): string | undefined {
  const fields: string[] = [];
  for (const [field, header] of Object.entries(TRANSMISSION_HEADERS)) {
    const value = headers[header];
    if (!value) return undefined;
    fields.push(`${JSON.stringify(field)}:${JSON.stringify(value)}`);
  }
  fields.push(`"webhook_id":${JSON.stringify(webhookId)}`);
  return `{${fields.join(',')},"webhook_event":${rawBody}}`;
}

/** The issue PayPal names in an error's details (`INSTRUMENT_DECLINED`), if any. */
export function paypalIssue(error: unknown): string | undefined {
  const issue = (error as { result?: { details?: { issue?: unknown }[] } } | null)?.result?.details?.[0]
    ?.issue;
  return typeof issue === 'string' ? issue : undefined;
}

/** PayPal's error reason: its `message` and the first detail's `issue`, without the SDK's decoration. */
export function paypalReason(error: unknown): string {
  const result = (error as { result?: { message?: unknown } } | null)?.result;
  const issue = paypalIssue(error);
  const message = typeof result?.message === 'string' ? result.message : messageOf(error);
  return typeof issue === 'string' ? `${issue}: ${message}` : message;
}
