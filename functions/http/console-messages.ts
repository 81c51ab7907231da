import { languageOf, type PageLanguage, resolveLocale } from '../domain/locale.ts';
import type { HtmlEvent } from './html-handler.ts';
import { consoleDe } from './messages/console-de.ts';
import { consoleEn } from './messages/console-en.ts';
import { consoleEs } from './messages/console-es.ts';
import { consoleFr } from './messages/console-fr.ts';
import { consoleNl } from './messages/console-nl.ts';
import type { ConsoleMessages } from './messages/console-texts.ts';

// Their shape lies beside the translations, which take it from there: from here, it would be a circle.
export type { ConsoleMessages } from './messages/console-texts.ts';

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
