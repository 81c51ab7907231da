import { createSecretKey } from 'node:crypto';
import { DynamoAccountSettingsRepository } from './adapters/dynamodb/account-settings-repository.ts';
import { DynamoApiKeyRepository } from './adapters/dynamodb/api-key-repository.ts';
import { DynamoArmCounterStore } from './adapters/dynamodb/arm-counter-store.ts';
import { DynamoBooks } from './adapters/dynamodb/books.ts';
import { DynamoCheckoutSettingsRepository } from './adapters/dynamodb/checkout-settings-repository.ts';
import { DynamoConsoleStore } from './adapters/dynamodb/console-store.ts';
import { DynamoEndpointHealthStore } from './adapters/dynamodb/endpoint-health-store.ts';
import { DynamoEndpointRecoveryStore } from './adapters/dynamodb/endpoint-recovery-store.ts';
import { DynamoEventRepository } from './adapters/dynamodb/event-repository.ts';
import { DynamoIdempotencyStore } from './adapters/dynamodb/idempotency-store.ts';
import { DynamoLinkRepository } from './adapters/dynamodb/link-repository.ts';
import { DynamoOutcomeCounterStore } from './adapters/dynamodb/outcome-counter-store.ts';
import { DynamoPaymentRepository } from './adapters/dynamodb/payment-repository.ts';
import { DynamoPersonalDataStore } from './adapters/dynamodb/personal-data-store.ts';
import { DynamoPspConfigRepository } from './adapters/dynamodb/psp-config-repository.ts';
import { DynamoPspConnectionRepository } from './adapters/dynamodb/psp-connection-repository.ts';
import { DynamoRateLimiter } from './adapters/dynamodb/rate-limiter.ts';
import { DynamoRefundLedger } from './adapters/dynamodb/refund-ledger.ts';
import { DynamoSandboxMandateStore } from './adapters/dynamodb/sandbox-mandate-store.ts';
import { DynamoSandboxSessionStore } from './adapters/dynamodb/sandbox-session-store.ts';
import { DynamoSearchIndex } from './adapters/dynamodb/search-index.ts';
import { DynamoSettlementRepository } from './adapters/dynamodb/settlement-repository.ts';
import { DynamoSigningSecretStore } from './adapters/dynamodb/signing-secret-store.ts';
import {
  DynamoCancelLinkStore,
  DynamoSubscriptionRepository,
} from './adapters/dynamodb/subscription-repository.ts';
import { DynamoWebhookEndpointRepository } from './adapters/dynamodb/webhook-endpoint-repository.ts';
import { CognitoIdentityProvider } from './adapters/http/cognito-identity.ts';
import { PSP_DESCRIPTORS } from './adapters/psp/registry.ts';
import { SandboxNotifier } from './adapters/psp/sandbox/notifier.ts';
import { FileKeyCipher } from './adapters/secrets/file-key-cipher.ts';
import { FileSecretStore } from './adapters/secrets/file-secret-store.ts';
import { KmsCipher } from './adapters/secrets/kms-cipher.ts';
import { SecretsManagerSecretStore } from './adapters/secrets/secrets-manager-store.ts';
import { BatchingSqsEventQueue, SqsEventQueue } from './adapters/sqs/event-queue.ts';
import { documentClient } from './clients/dynamodb.ts';
import { kmsClient } from './clients/kms.ts';
import { secretsManagerClient } from './clients/secrets-manager.ts';
import { sqsClient } from './clients/sqs.ts';
import { config, indexNames } from './config.ts';
import { once } from './once.ts';
import type { IdempotencyScope } from './ports/idempotency-store.ts';
import { OUTCOME_SHARDS } from './ports/outcome-counters.ts';
import { UNKNOWN_ID_LOOKUPS } from './ports/rate-limiter.ts';
import type { SecretStore } from './ports/secret-store.ts';
import { ApiKeyAuthenticator } from './use-cases/authenticate.ts';
import { newEndpointHealthCache } from './use-cases/endpoint-isolation.ts';
import { linkOfKey } from './use-cases/keyed-creates.ts';
import { OutageHealth } from './use-cases/outage-health.ts';
import { countingPayments, ObservedOutcomes, OutcomeRecorder } from './use-cases/outcome-recording.ts';
import { PspConnections } from './use-cases/psp-connections.ts';
import { cachedEndpointDirectory, cachedSigningSecrets } from './use-cases/webhook-fan-out.ts';

/**
 * The composition root: each adapter is built on first use (`once`) and then shared for the life of the
 * container, so a function's bundle keeps only the adapters it uses. (Adapters built on CommonJS libraries, which
 * cannot be tree-shaken, are composed in the one handler that needs them, with the same `once`: see
 * functions/handlers/deliver-webhook.ts.)
 */

export const now = () => new Date();

export const linkRepository = /* @__PURE__ */ once(
  () => new DynamoLinkRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

/** What a keyed create needs beyond the links: the HMAC key of its ids. */
export const keyedCreates = () => ({ links: linkRepository(), now, linkIdSecret: linkIdSecret() });
const linkIdSecret = /* @__PURE__ */ once(() =>
  createSecretKey(Buffer.from(config().LINK_ID_SECRET, 'utf8')),
);

/** The fingerprint of the create whose link holds an `Idempotency-Key` (functions/use-cases/keyed-creates.ts). */
export const linkRequestOfKey = async (scope: IdempotencyScope): Promise<string | undefined> =>
  (await linkOfKey(keyedCreates(), scope))?.request_hash ?? undefined;
/** The account-wide books of payments and refunds (`GET /v1/payments`, `GET /v1/refunds`). */
export const books = /* @__PURE__ */ once(
  () => new DynamoBooks(documentClient(), config().TABLE_NAME, indexNames()),
);

/** Where a payment's personal data is held besides the payment (docs/security.md#personal-data). */
export const personalDataStore = /* @__PURE__ */ once(
  () => new DynamoPersonalDataStore(documentClient(), config().TABLE_NAME, indexNames()),
);

/** The console's search index (docs/data-model.md#search). */
export const searchIndex = /* @__PURE__ */ once(
  () => new DynamoSearchIndex(documentClient(), config().TABLE_NAME),
);

export const accountSettingsRepository = /* @__PURE__ */ once(
  () => new DynamoAccountSettingsRepository(documentClient(), config().TABLE_NAME),
);

export const refundLedger = /* @__PURE__ */ once(
  () => new DynamoRefundLedger(documentClient(), config().TABLE_NAME, indexNames()),
);

export const apiKeyRepository = /* @__PURE__ */ once(
  () => new DynamoApiKeyRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

/** The key webhook signing secrets are sealed with: KMS on AWS, a key file in the local stack. */
export const signingKeyCipher = /* @__PURE__ */ once(() => {
  const { LOCAL_SIGNING_KEY_FILE, SIGNING_KEY_ID } = config();
  return LOCAL_SIGNING_KEY_FILE
    ? new FileKeyCipher(LOCAL_SIGNING_KEY_FILE)
    : new KmsCipher({ client: kmsClient, keyId: SIGNING_KEY_ID });
});

/** Webhook signing secrets: used by the delivery function (and the keys CLI) only. */
export const signingSecretStore = /* @__PURE__ */ once(
  () => new DynamoSigningSecretStore(documentClient(), config().TABLE_NAME, signingKeyCipher()),
);

/** Merchants' webhook endpoints; their secrets stay sealed unless the function holds the signing key. */
export const webhookEndpointRepository = /* @__PURE__ */ once(
  () => new DynamoWebhookEndpointRepository(documentClient(), config().TABLE_NAME),
);

export const endpointRecoveryStore = /* @__PURE__ */ once(
  () => new DynamoEndpointRecoveryStore(documentClient(), config().TABLE_NAME),
);

export const eventQueue = /* @__PURE__ */ once(
  () => new SqsEventQueue(sqsClient(), config().EVENTS_QUEUE_URL),
);

/** The events queue for webhook delivery, which re-sends many messages at once (retries, held-back events). */
export const deliveryEventQueue = /* @__PURE__ */ once(
  () => new BatchingSqsEventQueue(sqsClient(), config().EVENTS_QUEUE_URL),
);

export const apiKeyAuthenticator = /* @__PURE__ */ once(
  () =>
    new ApiKeyAuthenticator(apiKeyRepository(), { cacheTtlMs: config().API_KEY_CACHE_TTL_SECONDS * 1000 }),
);

export const eventRepository = /* @__PURE__ */ once(
  () => new DynamoEventRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

export const endpointHealthStore = /* @__PURE__ */ once(
  () => new DynamoEndpointHealthStore(documentClient(), config().TABLE_NAME),
);

/*
 * What webhook delivery remembers within a container (functions/use-cases/webhook-delivery.ts): built once per
 * container here, never module state of the use case, so each test builds its own.
 */

/** Signing secrets per (account, mode), read once a minute (`cachedSigningSecrets`). */
export const deliverySigningSecrets = /* @__PURE__ */ once(() =>
  cachedSigningSecrets(signingSecretStore(), now),
);

/** Each tenant's webhook endpoints, read once a second, their secrets opened once (`cachedEndpointDirectory`). */
export const webhookEndpointDirectory = /* @__PURE__ */ once(() =>
  cachedEndpointDirectory(webhookEndpointRepository(), signingKeyCipher(), now),
);

/** What this container knows of endpoints' health (docs/webhooks.md, "Isolation"). */
export const endpointHealthCache = /* @__PURE__ */ once(() => newEndpointHealthCache());

/** The messages this container is attempting right now (two copies of one in a batch post once). */
export const attemptsInFlight = /* @__PURE__ */ once(() => new Set<string>());

export const deadLetterQueue = /* @__PURE__ */ once(
  () => new SqsEventQueue(sqsClient(), config().EVENTS_DEAD_LETTER_QUEUE_URL),
);

export const secretStore = /* @__PURE__ */ once((): SecretStore => {
  const { LOCAL_SECRETS_FILE, SECRETS_CACHE_SECONDS } = config();
  return LOCAL_SECRETS_FILE
    ? new FileSecretStore(LOCAL_SECRETS_FILE)
    : new SecretsManagerSecretStore(secretsManagerClient(), { maxAgeSeconds: SECRETS_CACHE_SECONDS });
});

/** The sandbox PSP's HMAC secret (signs and verifies its notifications). */
export const sandboxSigningSecret = async (): Promise<string> => {
  const secret = await secretStore().get(config().SANDBOX_SECRET_NAME);
  if (!secret) throw new Error('The sandbox signing secret is missing from the secret store');
  return secret;
};

export const pspConfigRepository = /* @__PURE__ */ once(
  () => new DynamoPspConfigRepository(documentClient(), config().TABLE_NAME),
);

export const checkoutSettingsRepository = /* @__PURE__ */ once(
  () => new DynamoCheckoutSettingsRepository(documentClient(), config().TABLE_NAME),
);

export const sandboxSessionStore = /* @__PURE__ */ once(
  () => new DynamoSandboxSessionStore(documentClient(), config().TABLE_NAME),
);

/** The sandbox PSP's simulated mandates and their charges (docs/subscriptions.md#the-sandbox). */
export const sandboxMandateStore = /* @__PURE__ */ once(
  () => new DynamoSandboxMandateStore(documentClient(), config().TABLE_NAME),
);

/** Subscriptions, their events and renewals (docs/subscriptions.md). */
export const subscriptionRepository = /* @__PURE__ */ once(
  () => new DynamoSubscriptionRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

/** Buyers' single-use cancel links of subscriptions. */
export const cancelLinkStore = /* @__PURE__ */ once(
  () => new DynamoCancelLinkStore(documentClient(), config().TABLE_NAME),
);

export const sandboxNotifier = /* @__PURE__ */ once(
  () => new SandboxNotifier({ baseUrl: config().BASE_URL, signingSecret: sandboxSigningSecret, now }),
);

export const outcomeCounterStore = /* @__PURE__ */ once(
  () => new DynamoOutcomeCounterStore(documentClient(), config().TABLE_NAME),
);

/** The arms of `optimize` rules (docs/orchestration.md#uplift). */
export const armCounterStore = /* @__PURE__ */ once(
  () => new DynamoArmCounterStore(documentClient(), config().TABLE_NAME),
);

/** This container's outcome counts, flushed to one shard chosen when it starts (docs/orchestration.md). */
export const outcomeRecorder = /* @__PURE__ */ once(
  () =>
    new OutcomeRecorder({
      store: outcomeCounterStore(),
      arms: armCounterStore(),
      shard: Math.floor(Math.random() * OUTCOME_SHARDS),
      flushEveryMs: config().OUTCOME_FLUSH_MS,
      now,
    }),
);

export const observedOutcomes = /* @__PURE__ */ once(
  () => new ObservedOutcomes(outcomeCounterStore(), { maxAgeMs: config().OUTCOME_CACHE_MS, now }),
);

/** This container's runs of outages per connection, feeding connection health (docs/orchestration.md#health). */
export const outageHealth = /* @__PURE__ */ once(() => new OutageHealth(pspConnectionRepository(), now));

export const settlementRepository = /* @__PURE__ */ once(
  () => new DynamoSettlementRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

export const paymentRepository = /* @__PURE__ */ once(() =>
  countingPayments(
    new DynamoPaymentRepository(documentClient(), config().TABLE_NAME, indexNames()),
    outcomeRecorder(),
    outageHealth(),
  ),
);

export const pspConnectionRepository = /* @__PURE__ */ once(
  () => new DynamoPspConnectionRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

/**
 * The connections of each (account, mode), their routing and their PSPs' descriptors, without any PSP adapter:
 * for the merchant API, whose functions never talk to a PSP and so carry no PSP adapter or SDK.
 */
export const pspDirectory = /* @__PURE__ */ once(
  () =>
    new PspConnections({
      repository: pspConnectionRepository(),
      legacyConfigs: pspConfigRepository(),
      descriptors: PSP_DESCRIPTORS,
      secretPrefix: config().PSP_SECRET_PREFIX,
    }),
);

export const idempotencyStore = /* @__PURE__ */ once(
  () => new DynamoIdempotencyStore(documentClient(), config().TABLE_NAME),
);

/** Counts, per connection, the notification ids its PSP does not know (`UnknownNotificationIds`). */
export const unknownIdLimiter = /* @__PURE__ */ once(
  () => new DynamoRateLimiter(documentClient(), config().TABLE_NAME, UNKNOWN_ID_LOOKUPS),
);

export const rateLimiter = /* @__PURE__ */ once(
  () =>
    new DynamoRateLimiter(documentClient(), config().TABLE_NAME, {
      limit: config().RATE_LIMIT_REQUESTS,
      windowSeconds: config().RATE_LIMIT_WINDOW_SECONDS,
    }),
);

/** The merchant console's sign-in links, sessions and audit log. */
export const consoleStore = /* @__PURE__ */ once(
  () => new DynamoConsoleStore(documentClient(), config().TABLE_NAME),
);

/** The console's hosted sign-in, when the stack has a user pool (deployed); undefined on the local stack. */
export const consoleIdentityProvider = /* @__PURE__ */ once(() => {
  const { CONSOLE_USER_POOL_ID, CONSOLE_CLIENT_ID, CONSOLE_AUTH_DOMAIN, BASE_URL } = config();
  if (!CONSOLE_USER_POOL_ID || !CONSOLE_CLIENT_ID || !CONSOLE_AUTH_DOMAIN) return undefined;
  return new CognitoIdentityProvider({
    userPoolId: CONSOLE_USER_POOL_ID,
    clientId: CONSOLE_CLIENT_ID,
    domain: CONSOLE_AUTH_DOMAIN,
    redirectUri: `${BASE_URL}/console/auth/callback`,
    signedOutUri: `${BASE_URL}/console/sign-in`,
  });
});
