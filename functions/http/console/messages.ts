import { languageOf, type PageLanguage, resolveLocale } from '../../domain/locale.ts';
import type { HtmlEvent } from '../html-handler.ts';
import type { ConsoleMessages } from './messages/texts.ts';

// Their shape lies beside the translations, which take it from there: from here, it would be a circle.
export type { ConsoleMessages } from './messages/texts.ts';

/**
 * Each language's texts are a chunk of their own, loaded by the first request that speaks it, so that a cold
 * start loads none (docs/performance.md#a-buyers-cold-start).
 */
const LANGUAGES: Record<PageLanguage, () => Promise<ConsoleMessages>> = {
  en: async () => (await import('./messages/en.ts')).consoleEn,
  nl: async () => (await import('./messages/nl.ts')).consoleNl,
  de: async () => (await import('./messages/de.ts')).consoleDe,
  fr: async () => (await import('./messages/fr.ts')).consoleFr,
  es: async () => (await import('./messages/es.ts')).consoleEs,
};

/**
 * The languages loaded so far: the pages take their words synchronously (`consoleMessages`), deep in their
 * views, once the request that draws them has loaded its language. What the module loader already keeps, named.
 */
const loaded = new Map<PageLanguage, ConsoleMessages>();

/** The language the console speaks to this browser: its `Accept-Language`, as the checkout reads it; else English. */
export const consoleLanguage = (event: HtmlEvent): PageLanguage =>
  languageOf(resolveLocale(undefined, event.headers['accept-language']));

/** Loads the console's texts in `language`, before any page in it is drawn (every console entry point does). */
export async function loadConsoleMessages(language: PageLanguage): Promise<ConsoleMessages> {
  const words = loaded.get(language) ?? (await LANGUAGES[language]());
  loaded.set(language, words);
  return words;
}

/** The console's texts in `language`, which the request drawing the page has loaded (`loadConsoleMessages`). */
export function consoleMessages(language: PageLanguage): ConsoleMessages {
  const words = loaded.get(language);
  if (!words) throw new Error(`The console's texts in ${language} were not loaded before its page was drawn`);
  return words;
}
