import { config } from '../config.ts';
import {
  apiKeyRepository,
  checkoutSettingsRepository,
  consoleIdentityProvider,
  consoleStore,
  endpointRecoveryStore,
  eventQueue,
  eventRepository,
  linkRepository,
  now,
  observedOutcomes,
  paymentRefunds,
  paymentRepository,
  pspConnections,
  pspDirectory,
  refundLedger,
  signingKeyCipher,
  signingSecretStore,
  webhookEndpointRepository,
} from '../dependencies.ts';
import { handleConsole } from '../http/console-routes.ts';
import { htmlHandler } from '../http/html-handler.ts';

/** Every page and form of the merchant console under /console (docs/console.md). */
export const handler = htmlHandler((event) =>
  handleConsole(event, {
    store: consoleStore(),
    identity: consoleIdentityProvider(),
    links: linkRepository(),
    payments: paymentRepository(),
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
    apiKeys: apiKeyRepository(),
    signingSecrets: signingSecretStore(),
    now,
    checkoutBase: config().CHECKOUT_BASE,
    allowPrivateTargets: config().ALLOW_PRIVATE_TARGETS,
  }),
);
