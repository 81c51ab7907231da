import { languageOf, type PageLanguage, resolveLocale } from '../../domain/locale.ts';
import type { HtmlEvent } from '../html-handler.ts';
import { consoleDe } from './messages/de.ts';
import { consoleEn } from './messages/en.ts';
import { consoleEs } from './messages/es.ts';
import { consoleFr } from './messages/fr.ts';
import { consoleNl } from './messages/nl.ts';
import type { ConsoleMessages } from './messages/texts.ts';

// Their shape lies beside the translations, which take it from there: from here, it would be a circle.
export type { ConsoleMessages } from './messages/texts.ts';

const CONSOLE_MESSAGES: Record<PageLanguage, ConsoleMessages> = {
  en: consoleEn,
  nl: consoleNl,
  de: consoleDe,
  fr: consoleFr,
  es: consoleEs,
};

/** The language the console speaks to this browser: its `Accept-Language`, as the checkout reads it; else English. */
export const consoleLanguage = (event: HtmlEvent): PageLanguage =>
  languageOf(resolveLocale(undefined, event.headers['accept-language']));

export const consoleMessages = (language: PageLanguage): ConsoleMessages => CONSOLE_MESSAGES[language];
