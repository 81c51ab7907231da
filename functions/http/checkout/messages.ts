import { languageOf, type PageLanguage } from '../../domain/locale.ts';
import type { Messages } from './messages/texts.ts';

// Their shape lies beside the translations, which take it from there: from here, it would be a circle.
export type { FormMessages, Messages } from './messages/texts.ts';

/**
 * Each language's texts are a chunk of their own, loaded by the first request that speaks it: a buyer sees one
 * language, and a cold start loads none (docs/performance.md#a-buyers-cold-start).
 */
const LANGUAGES: Record<PageLanguage, () => Promise<Messages>> = {
  en: async () => (await import('./messages/en.ts')).en,
  nl: async () => (await import('./messages/nl.ts')).nl,
  de: async () => (await import('./messages/de.ts')).de,
  fr: async () => (await import('./messages/fr.ts')).fr,
  es: async () => (await import('./messages/es.ts')).es,
};

/** The texts for a locale tag (`nl-BE` speaks `nl`); English for anything we do not speak. */
export const messagesFor = (locale: string): Promise<Messages> => LANGUAGES[languageOf(locale)]();
