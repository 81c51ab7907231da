import { languageOf, type PageLanguage } from '../../domain/locale.ts';
import { de } from './messages/de.ts';
import { en } from './messages/en.ts';
import { es } from './messages/es.ts';
import { fr } from './messages/fr.ts';
import { nl } from './messages/nl.ts';
import type { Messages } from './messages/texts.ts';

// Their shape lies beside the translations, which take it from there: from here, it would be a circle.
export type { FormMessages, Messages } from './messages/texts.ts';

const MESSAGES: Record<PageLanguage, Messages> = { en, nl, de, fr, es };

/** The texts for a locale tag (`nl-BE` speaks `nl`); English for anything we do not speak. */
export const messagesFor = (locale: string): Messages => MESSAGES[languageOf(locale)];
