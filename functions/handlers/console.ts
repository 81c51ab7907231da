import { config } from '../config.ts';
import {
  accountSettingsRepository,
  apiKeyRepository,
  books,
  checkoutSettingsRepository,
  consoleIdentityProvider,
  consoleStore,
  endpointRecoveryStore,
  eventQueue,
  eventRepository,
  linkRepository,
  now,
  observedOutcomes,
  paymentRepository,
  personalDataStore,
  pspDirectory,
  refundLedger,
  searchIndex,
  signingKeyCipher,
  signingSecretStore,
  webhookEndpointRepository,
} from '../dependencies.ts';
import { handleConsole } from '../http/console/router.ts';
import { htmlHandler } from '../http/html-handler.ts';
import { mandatePaymentHook, paymentRefunds, pspConnections } from '../psp-dependencies.ts';
import { subscriptionRepository } from '../subscription-dependencies.ts';

/** Every page and form of the merchant console under /console (docs/console.md). */
export const handler = htmlHandler((event) =>
  handleConsole(event, {
    store: consoleStore(),
    identity: consoleIdentityProvider(),
    links: linkRepository(),
    payments: paymentRepository(),
    mandatePayments: mandatePaymentHook(),
    events: eventRepository(),
    ledger: refundLedger(),
    queue: eventQueue(),
    refunds: paymentRefunds(),
    pspSessions: pspConnections(),
    endpoints: webhookEndpointRepository(),
    cipher: signingKeyCipher(),
    psps: pspDirectory(),
    recoveries: endpointRecoveryStore(),
    observed: observedOutcomes(),
    settings: checkoutSettingsRepository(),
    books: books(),
    personalData: personalDataStore(),
    search: searchIndex(),
    accountSettings: accountSettingsRepository(),
    apiKeys: apiKeyRepository(),
    signingSecrets: signingSecretStore(),
    subscriptions: subscriptionRepository(),
    now,
    checkoutBase: config().CHECKOUT_BASE,
    publicOrigin: new URL(config().BASE_URL).origin,
    edgeSecret: config().EDGE_ORIGIN_SECRET,
    allowPrivateTargets: config().ALLOW_PRIVATE_TARGETS,
  }),
);
