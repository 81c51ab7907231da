import type { ModificationsApi } from '@adyen/api-library/lib/src/services/checkout/modificationsApi.js';
import type { PaymentLinksApi } from '@adyen/api-library/lib/src/services/checkout/paymentLinksApi.js';
import { CALL_BUDGETS } from '../../domain/call-budgets.ts';
import type { Mode } from '../../domain/principal.ts';

// CommonJS declarations: under NodeNext their `export default` is the `default` member of the module.
type AdyenClient = typeof import('@adyen/api-library/lib/src/client.js').default;
type ClientInterface = import('@adyen/api-library/lib/src/httpClient/clientInterface.js').default;
type HmacValidator = import('@adyen/api-library/lib/src/utils/hmacValidator.js').default;

/** A connection's stored credentials (docs/orchestration.md#adyen). */
export interface AdyenCredentials {
  api_key: string;
  merchant_account: string;
  /** The HMAC key of the connection's webhook (hex), and the one it replaces while a rotation overlaps. */
  hmac_key: string;
  previous_hmac_key?: string;
  environment: Mode;
  /** Live only: the `[random]-[company name]` prefix of the account's live endpoints. */
  live_endpoint_url_prefix?: string;
}

const HEX_KEY = /^[0-9A-Fa-f]{32,128}$/;

/** Throws unless `credentials` are Adyen credentials of the connection's `mode`. */
export function checkAdyenCredentials(credentials: unknown, mode: Mode): AdyenCredentials {
  const given = (credentials ?? {}) as Partial<Record<keyof AdyenCredentials, unknown>>;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
  const shape =
    'An Adyen connection needs {"api_key", "merchant_account", "hmac_key" (hex), "environment": "test"|"live"} and, live, "live_endpoint_url_prefix".';
  const apiKey = text(given.api_key);
  const merchantAccount = text(given.merchant_account);
  const hmacKey = text(given.hmac_key);
  const previousHmacKey = text(given.previous_hmac_key);
  if (!apiKey || !merchantAccount || !hmacKey || !HEX_KEY.test(hmacKey)) throw new Error(shape);
  if (previousHmacKey !== undefined && !HEX_KEY.test(previousHmacKey)) throw new Error(shape);
  if (given.environment !== 'test' && given.environment !== 'live') throw new Error(shape);
  if (given.environment !== mode) {
    throw new Error(
      `A ${mode}-mode Adyen connection needs credentials of Adyen's ${mode} environment, not ${given.environment}.`,
    );
  }
  const prefix = text(given.live_endpoint_url_prefix);
  if (mode === 'live' && (!prefix || !/^[A-Za-z0-9-]+$/.test(prefix))) {
    throw new Error('A live Adyen connection needs its live_endpoint_url_prefix (Customer Area, API URLs).');
  }
  return {
    api_key: apiKey,
    merchant_account: merchantAccount,
    hmac_key: hmacKey,
    ...(previousHmacKey ? { previous_hmac_key: previousHmacKey } : {}),
    environment: mode,
    ...(prefix ? { live_endpoint_url_prefix: prefix } : {}),
  };
}

/** The part of the SDK the adapter uses, loaded by the factory. */
export interface AdyenSdk {
  paymentLinks: PaymentLinksApi;
  modifications: ModificationsApi;
  hmac: HmacValidator;
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
  return {
    paymentLinks: new (namedExports(links).PaymentLinksApi)(adyen),
    modifications: new (namedExports(modifications).ModificationsApi)(adyen),
    hmac: new Hmac(),
  };
}
