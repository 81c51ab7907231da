import type { HtmlResult } from '../html-handler.ts';
import { type BooksPageDependencies, booksRoutes } from './books.ts';
import { type KeysPageDependencies, keyRoutes } from './keys.ts';
import { type LinkPageDependencies, linkRoutes } from './links.ts';
import { paymentRoutes } from './payment-page.ts';
import { type PspPageDependencies, pspRoutes } from './psps.ts';
import type { ConsoleRequest } from './request.ts';
import { type SearchDependencies, searchRoutes } from './search.ts';
import { type SettingsPageDependencies, settingsRoutes } from './settings.ts';
import { type SettlementPageDependencies, settlementRoutes } from './settlements.ts';
import { type SubscriptionPageDependencies, subscriptionRoutes } from './subscriptions.ts';
import { type WebhookPageDependencies, webhookRoutes } from './webhooks.ts';

/**
 * The console's pages beyond the session's own (router.ts): links, webhooks and events, payment providers,
 * checkout settings, the books, subscriptions, settlements and API keys. One chunk, loaded by the first request for any of them, so that a
 * cold start loads only what every request needs (docs/performance.md#a-buyers-cold-start).
 */

export type PagesDependencies = LinkPageDependencies &
  WebhookPageDependencies &
  PspPageDependencies &
  SettingsPageDependencies &
  BooksPageDependencies &
  KeysPageDependencies &
  SubscriptionPageDependencies &
  SettlementPageDependencies &
  SearchDependencies;

/** The page or change of a route of these pages, else undefined. */
export async function pageRoutes(
  request: ConsoleRequest,
  deps: PagesDependencies,
): Promise<HtmlResult | undefined> {
  return (
    (await linkRoutes(request, deps)) ??
    (await paymentRoutes(request, deps)) ??
    (await webhookRoutes(request, deps)) ??
    (await pspRoutes(request, deps)) ??
    (await settingsRoutes(request, deps)) ??
    (await booksRoutes(request, deps)) ??
    (await keyRoutes(request, deps)) ??
    (await subscriptionRoutes(request, deps)) ??
    (await settlementRoutes(request, deps)) ??
    (await searchRoutes(request, deps))
  );
}
