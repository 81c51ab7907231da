import { PSP_FACTORIES } from './adapters/psp/factories.ts';
import { PSP_DESCRIPTORS } from './adapters/psp/registry.ts';
import { config, pspApiUrls } from './config.ts';
import {
  accountSettingsRepository,
  eventQueue,
  linkRepository,
  now,
  paymentRepository,
  pspConfigRepository,
  pspConnectionRepository,
  refundLedger,
  sandboxMandateStore,
  sandboxSessionStore,
  sandboxSigningSecret,
  secretStore,
  settlementRepository,
  subscriptionRepository,
} from './dependencies.ts';
import { DEFAULT_COLLECTION } from './domain/subscription-schedule.ts';
import { once } from './once.ts';
import { PspConnections } from './use-cases/psp-connections.ts';
import type { ChargeDependencies } from './use-cases/subscription-charges.ts';
import { mandatePayments } from './use-cases/subscription-starts.ts';
import { refundUnwanted } from './use-cases/unwanted-payments.ts';

/*
 * The composition root's part for the functions that talk to PSPs (checkout, notifications, refunds, the sweepers,
 * the console): it alone imports the PSPs' factories, whose `import()`s esbuild makes chunks of in every bundle
 * that meets them (functions/adapters/psp/factories.ts). Every other function composes from
 * functions/dependencies.ts only and carries no PSP adapter.
 */

/**
 * Every registered PSP (functions/adapters/psp/registry.ts), each factory built on the first use of one of its
 * connections and handed its own `<ID>_API_URL`; each PSP's SDK is loaded when its first adapter is built.
 */
export const pspConnections = /* @__PURE__ */ once(
  () =>
    new PspConnections({
      repository: pspConnectionRepository(),
      legacyConfigs: pspConfigRepository(),
      descriptors: PSP_DESCRIPTORS,
      secretPrefix: config().PSP_SECRET_PREFIX,
      factories: PSP_FACTORIES,
      runtime: (descriptor) => ({
        secrets: secretStore(),
        apiUrl: pspApiUrls()[descriptor.id],
        baseUrl: config().BASE_URL,
        now,
        sandbox: {
          sessions: sandboxSessionStore,
          signingSecret: sandboxSigningSecret,
          mandates: sandboxMandateStore,
        },
      }),
    }),
);

/**
 * What ending a link needs (functions/use-cases/payment-links.ts: a cancel, an expiry): its open PSP sessions ended,
 * a payment found paid meanwhile recorded, a subscription it opened started.
 */
export const linkEndings = () => ({
  links: linkRepository(),
  queue: eventQueue(),
  pspSessions: pspConnections(),
  payments: paymentRepository(),
  mandatePayments: mandatePaymentHook(),
  now,
  checkoutBase: config().CHECKOUT_BASE,
});

/** Refunds go through the connection that took the payment. */
export const paymentRefunds = pspConnections;

/** What starting, changing and charging subscriptions share: their store, the links and PSPs, the event queue. */
const subscriptionParts = () => ({
  subscriptions: subscriptionRepository(),
  links: linkRepository(),
  psps: pspConnections(),
  queue: eventQueue(),
  now,
  checkoutBase: config().CHECKOUT_BASE,
});

/**
 * What ending a subscription needs (functions/use-cases/subscription-endings.ts): its change, and its update link's
 * cancel, which ends that link's PSP session. The merchant's cancel and the buyer's cancel link.
 */
export const subscriptionEndings = () => ({
  ...linkEndings(),
  subscriptions: subscriptionRepository(),
});

/** What charging subscriptions needs (functions/use-cases/subscription-charges.ts): the sweeper and `advance`. */
export const subscriptionCharges = (): ChargeDependencies => ({
  ...linkEndings(),
  ...subscriptionParts(),
  collection: async (account, mode) =>
    (await accountSettingsRepository().get(account, mode)) ?? DEFAULT_COLLECTION,
});

/**
 * What a paid subscription link or update link starts (functions/use-cases/subscription-starts.ts): wired into every
 * function that records payments. An update link paid after its subscription ended is refunded through the link's
 * refunds (functions/use-cases/unwanted-payments.ts).
 */
export const mandatePaymentHook = /* @__PURE__ */ once(() => {
  const parts = subscriptionParts();
  const refunding = {
    ...parts,
    ledger: refundLedger(),
    payments: paymentRepository(),
    refunds: paymentRefunds(),
  };
  return mandatePayments({
    ...parts,
    refundUnwanted: (link, payment) => refundUnwanted(refunding, link, payment),
  });
});

/**
 * The checkout page's: the same, but an update link paid after its subscription ended is left to the PSP's
 * notification to refund, as the buyer's cold start carries no refunds (docs/subscriptions.md#update-links).
 */
export const checkoutMandatePaymentHook = /* @__PURE__ */ once(() => mandatePayments(subscriptionParts()));

/** What the settlement sweeper needs (functions/use-cases/settlements.ts). */
export const settlementSweep = () => ({
  settlements: settlementRepository(),
  payments: paymentRepository(),
  links: linkRepository(),
  psps: pspConnections(),
  now,
});
