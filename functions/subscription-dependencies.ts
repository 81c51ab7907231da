import {
  DynamoCancelLinkStore,
  DynamoSubscriptionRepository,
} from './adapters/dynamodb/subscription-repository.ts';
import { documentClient } from './clients/dynamodb.ts';
import { config, indexNames } from './config.ts';
import { accountSettingsRepository, eventQueue, linkRepository, now } from './dependencies.ts';
import { DEFAULT_COLLECTION } from './domain/subscription-schedule.ts';
import { once } from './once.ts';
import type { ChargeDependencies } from './use-cases/subscription-charges.ts';

/*
 * The composition root's part for subscriptions: a module of its own so that a function that records payments
 * (the checkout page, notifications) loads it, with `import()`, only for a payment that opens a mandate
 * (`mandatePaymentHook`, functions/psp-dependencies.ts), never at a cold start.
 */

/** Subscriptions, their events and renewals (docs/subscriptions.md). */
export const subscriptionRepository = /* @__PURE__ */ once(
  () => new DynamoSubscriptionRepository(documentClient(), config().TABLE_NAME, indexNames()),
);

/** Buyers' single-use cancel links of subscriptions. */
export const cancelLinkStore = /* @__PURE__ */ once(
  () => new DynamoCancelLinkStore(documentClient(), config().TABLE_NAME),
);

/**
 * What charging subscriptions needs (functions/use-cases/subscription-charges.ts): the sweeper and `advance`, with
 * the PSPs of functions/psp-dependencies.ts (`pspConnections()`), which loads this module only on demand.
 */
export const subscriptionCharges = (psps: ChargeDependencies['psps']): ChargeDependencies => ({
  subscriptions: subscriptionRepository(),
  links: linkRepository(),
  psps,
  queue: eventQueue(),
  now,
  checkoutBase: config().CHECKOUT_BASE,
  collection: async (account, mode) =>
    (await accountSettingsRepository().get(account, mode)) ?? DEFAULT_COLLECTION,
});
