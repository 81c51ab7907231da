import type { ModificationsApi } from '@adyen/api-library/lib/src/services/checkout/modificationsApi.js';
import type { PaymentLinksApi } from '@adyen/api-library/lib/src/services/checkout/paymentLinksApi.js';
import type { PaymentsApi } from '@adyen/api-library/lib/src/services/checkout/paymentsApi.js';
import type { RecurringApi } from '@adyen/api-library/lib/src/services/checkout/recurringApi.js';
import { CALL_BUDGETS } from '../../../domain/call-budgets.ts';
import type { CredentialsOf } from '../kit/credentials.ts';
import type { adyen } from './descriptor.ts';

// CommonJS declarations: under NodeNext their `export default` is the `default` member of the module.
type AdyenClient = typeof import('@adyen/api-library/lib/src/client.js').default;
type ClientInterface = import('@adyen/api-library/lib/src/httpClient/clientInterface.js').default;
type HmacValidator = import('@adyen/api-library/lib/src/utils/hmacValidator.js').default;

/** A connection's stored credentials (its descriptor's `credentials`, docs/orchestration.md#adyen). */
export type AdyenCredentials = CredentialsOf<typeof adyen>;

/** The part of the SDK the adapter uses, loaded by the factory. */
export interface AdyenSdk {
  paymentLinks: PaymentLinksApi;
  modifications: ModificationsApi;
  hmac: HmacValidator;
  /** The services only mandates use (mandates.ts), loaded on their first use: checkout never loads them. */
  mandates: () => Promise<AdyenMandateSdk>;
}

export interface AdyenMandateSdk {
  payments: PaymentsApi;
  recurring: RecurringApi;
}

/**
 * Sends the SDK's requests to another origin than Adyen's (tests: an Adyen-speaking server), keeping their
 * paths: the SDK itself has no base-URL option, but takes an HTTP client.
 */
function rebased(inner: ClientInterface, origin: string): ClientInterface {
  return {
    request(endpoint, json, config, isApiKeyRequired, requestOptions) {
      const url = new URL(endpoint);
      return inner.request(
        new URL(`${url.pathname}${url.search}`, origin).toString(),
        json,
        config,
        isApiKeyRequired,
        requestOptions,
      );
    },
  };
}

/**
 * The class a CommonJS module exports as `exports.default`: Node (and esbuild for Node) hand over `exports`
 * itself as the ESM default, loaders that honour `__esModule` hand over the class.
 */
function defaultExport<T>(module: { default: unknown }): T {
  const value = module.default as { default?: unknown } | undefined;
  return (typeof value === 'function' ? value : value?.default) as T;
}

/**
 * A CommonJS module's named exports. Node, loading the file itself, finds them on the namespace; in a Lambda
 * bundle the module sits in a chunk of its own (code splitting, docs/performance.md#cold-start-no-psp-sdk-before-it-is-needed),
 * which exports the module's `exports` object as its default only.
 */
function namedExports<T extends object>(module: T): T {
  const fromDefault = (module as { default?: unknown }).default;
  return { ...(typeof fromDefault === 'object' && fromDefault !== null ? fromDefault : {}), ...module } as T;
}

/**
 * Loaded here, not at module scope: only functions that talk to Adyen evaluate the SDK, and only its Checkout
 * services, not the whole library (docs/performance.md).
 */
export async function loadAdyenSdk(
  credentials: AdyenCredentials,
  apiUrl: string | undefined,
): Promise<AdyenSdk> {
  const [client, config, http, links, modifications, hmac] = await Promise.all([
    import('@adyen/api-library/lib/src/client.js'),
    import('@adyen/api-library/lib/src/config.js'),
    import('@adyen/api-library/lib/src/httpClient/httpURLConnectionClient.js'),
    import('@adyen/api-library/lib/src/services/checkout/paymentLinksApi.js'),
    import('@adyen/api-library/lib/src/services/checkout/modificationsApi.js'),
    import('@adyen/api-library/lib/src/utils/hmacValidator.js'),
  ]);
  const ClientClass = defaultExport<AdyenClient>(client);
  const HttpClient = defaultExport<new () => ClientInterface>(http);
  const Hmac = defaultExport<new () => HmacValidator>(hmac);
  const { EnvironmentEnum } = namedExports(config);
  const environment = credentials.environment === 'live' ? EnvironmentEnum.LIVE : EnvironmentEnum.TEST;
  const httpClient = apiUrl ? rebased(new HttpClient(), apiUrl) : new HttpClient();
  const adyen = new ClientClass(
    {
      apiKey: credentials.api_key,
      environment,
      connectionTimeoutMillis: CALL_BUDGETS.psp.timeoutMs,
      ...(credentials.live_endpoint_url_prefix
        ? { liveEndpointUrlPrefix: credentials.live_endpoint_url_prefix }
        : {}),
    },
    httpClient,
  );
  let mandates: Promise<AdyenMandateSdk> | undefined;
  return {
    paymentLinks: new (namedExports(links).PaymentLinksApi)(adyen),
    modifications: new (namedExports(modifications).ModificationsApi)(adyen),
    hmac: new Hmac(),
    mandates: () => {
      mandates ??= loadMandateServices(adyen);
      return mandates;
    },
  };
}

async function loadMandateServices(adyen: InstanceType<AdyenClient>): Promise<AdyenMandateSdk> {
  const [payments, recurring] = await Promise.all([
    import('@adyen/api-library/lib/src/services/checkout/paymentsApi.js'),
    import('@adyen/api-library/lib/src/services/checkout/recurringApi.js'),
  ]);
  return {
    payments: new (namedExports(payments).PaymentsApi)(adyen),
    recurring: new (namedExports(recurring).RecurringApi)(adyen),
  };
}
