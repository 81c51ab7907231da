import { languageOf, type PageLanguage } from '../../domain/locale.ts';
import type { Interval } from '../../domain/subscription-schedule.ts';

/**
 * What buyers read of subscriptions on our pages (docs/subscriptions.md#what-the-buyer-is-told): the terms before
 * they pay, how to cancel after, and the cancel link's page. Apart from the checkout's texts (./buyer-texts.ts) so
 * that only the pages that show a subscription carry them. Translated without a native speaker, as the rest
 * (docs/console.md#languages).
 */
export interface SubscriptionMessages {
  /** "every month", "every 3 months". */
  every(interval: Interval, count: number): string;
  /** What the buyer agrees to: the amount, how often, and for how long. */
  terms(amount: string, every: string, cycles: number | null): string;
  /** A trial before it. */
  trial(days: number): string;
  /** How to cancel, told before paying and again after: the merchant sends a cancel link. */
  howToCancel(merchant: string | undefined): string;
  /** On the PSP's page of an update link: the method paying now is charged for the later periods too. */
  laterPeriods: string;
  /** The page's title after a paid subscription link. */
  subscribedText: string;
  cancelTitle: string;
  cancelButton: string;
  /** The next charge, on the cancel page. */
  nextCharge(date: string): string;
  /** After the cancel: nothing more is charged; it ends with the period paid. */
  canceledAtEnd(date: string): string;
  canceledNow: string;
  alreadyOver: string;
  usedText: string;
  expiredText: string;
  notFoundTitle: string;
  notFoundText: string;
}

const en: SubscriptionMessages = {
  every: (interval, count) => (count === 1 ? `every ${interval}` : `every ${count} ${interval}s`),
  terms: (amount, every, cycles) =>
    cycles === null ? `${amount} ${every}, until you cancel.` : `${amount} ${every}, ${cycles} times in all.`,
  trial: (days) => `Free for ${days} days: the first charge is when the trial ends.`,
  howToCancel: (merchant) =>
    `You can cancel at any time: ask ${merchant ?? 'the merchant'} for a cancel link, and cancel there in one click.`,
  laterPeriods: "This payment method will also be charged for the subscription's later periods.",
  subscribedText: 'Your subscription is set up.',
  cancelTitle: 'Cancel your subscription',
  cancelButton: 'Cancel subscription',
  nextCharge: (date) => `Next charge: ${date}.`,
  canceledAtEnd: (date) => `Your subscription is canceled. Nothing more will be charged; it ends on ${date}.`,
  canceledNow: 'Your subscription is canceled. Nothing more will be charged.',
  alreadyOver: 'This subscription has already ended.',
  usedText: 'This cancel link was used already.',
  expiredText: 'This cancel link has expired. Ask the merchant for a new one.',
  notFoundTitle: 'Link not found',
  notFoundText: 'There is no cancel link at this address. Check the link you were given.',
};

const NL_INTERVALS: Record<Interval, [string, string]> = {
  day: ['dag', 'dagen'],
  week: ['week', 'weken'],
  month: ['maand', 'maanden'],
  year: ['jaar', 'jaar'],
};

const nl: SubscriptionMessages = {
  every: (interval, count) =>
    count === 1 ? `per ${NL_INTERVALS[interval][0]}` : `elke ${count} ${NL_INTERVALS[interval][1]}`,
  terms: (amount, every, cycles) =>
    cycles === null ? `${amount} ${every}, tot je opzegt.` : `${amount} ${every}, ${cycles} keer in totaal.`,
  trial: (days) => `${days} dagen gratis: de eerste betaling volgt als de proefperiode afloopt.`,
  howToCancel: (merchant) =>
    `Je kunt altijd opzeggen: vraag ${merchant ?? 'de verkoper'} om een opzeglink en zeg daar met één klik op.`,
  laterPeriods: 'Deze betaalmethode wordt ook gebruikt voor de volgende perioden van het abonnement.',
  subscribedText: 'Je abonnement is ingesteld.',
  cancelTitle: 'Je abonnement opzeggen',
  cancelButton: 'Abonnement opzeggen',
  nextCharge: (date) => `Volgende betaling: ${date}.`,
  canceledAtEnd: (date) =>
    `Je abonnement is opgezegd. Er wordt niets meer afgeschreven; het loopt af op ${date}.`,
  canceledNow: 'Je abonnement is opgezegd. Er wordt niets meer afgeschreven.',
  alreadyOver: 'Dit abonnement is al beëindigd.',
  usedText: 'Deze opzeglink is al gebruikt.',
  expiredText: 'Deze opzeglink is verlopen. Vraag de verkoper om een nieuwe.',
  notFoundTitle: 'Link niet gevonden',
  notFoundText: 'Op dit adres is geen opzeglink. Controleer de link die je kreeg.',
};

const DE_INTERVALS: Record<Interval, [string, string]> = {
  day: ['täglich', 'Tage'],
  week: ['wöchentlich', 'Wochen'],
  month: ['monatlich', 'Monate'],
  year: ['jährlich', 'Jahre'],
};

const de: SubscriptionMessages = {
  every: (interval, count) =>
    count === 1 ? DE_INTERVALS[interval][0] : `alle ${count} ${DE_INTERVALS[interval][1]}`,
  terms: (amount, every, cycles) =>
    cycles === null
      ? `${amount} ${every}, bis Sie kündigen.`
      : `${amount} ${every}, insgesamt ${cycles}-mal.`,
  trial: (days) => `${days} Tage kostenlos: die erste Zahlung erfolgt am Ende der Testphase.`,
  howToCancel: (merchant) =>
    `Sie können jederzeit kündigen: Bitten Sie ${merchant ?? 'den Händler'} um einen Kündigungslink und kündigen Sie dort mit einem Klick.`,
  laterPeriods: 'Diese Zahlungsmethode wird auch für die folgenden Zeiträume des Abonnements belastet.',
  subscribedText: 'Ihr Abonnement ist eingerichtet.',
  cancelTitle: 'Abonnement kündigen',
  cancelButton: 'Abonnement kündigen',
  nextCharge: (date) => `Nächste Zahlung: ${date}.`,
  canceledAtEnd: (date) =>
    `Ihr Abonnement ist gekündigt. Es wird nichts mehr abgebucht; es endet am ${date}.`,
  canceledNow: 'Ihr Abonnement ist gekündigt. Es wird nichts mehr abgebucht.',
  alreadyOver: 'Dieses Abonnement ist bereits beendet.',
  usedText: 'Dieser Kündigungslink wurde bereits verwendet.',
  expiredText: 'Dieser Kündigungslink ist abgelaufen. Bitten Sie den Händler um einen neuen.',
  notFoundTitle: 'Link nicht gefunden',
  notFoundText: 'Unter dieser Adresse gibt es keinen Kündigungslink. Prüfen Sie den erhaltenen Link.',
};

const FR_INTERVALS: Record<Interval, [string, string]> = {
  day: ['par jour', 'jours'],
  week: ['par semaine', 'semaines'],
  month: ['par mois', 'mois'],
  year: ['par an', 'ans'],
};

const fr: SubscriptionMessages = {
  every: (interval, count) =>
    count === 1 ? FR_INTERVALS[interval][0] : `tous les ${count} ${FR_INTERVALS[interval][1]}`,
  terms: (amount, every, cycles) =>
    cycles === null
      ? `${amount} ${every}, jusqu’à votre résiliation.`
      : `${amount} ${every}, ${cycles} fois au total.`,
  trial: (days) => `Gratuit pendant ${days} jours : le premier paiement a lieu à la fin de l’essai.`,
  howToCancel: (merchant) =>
    `Vous pouvez résilier à tout moment : demandez un lien de résiliation à ${merchant ?? 'votre commerçant'}, puis résiliez en un clic.`,
  laterPeriods: 'Ce moyen de paiement sera aussi débité pour les périodes suivantes de l’abonnement.',
  subscribedText: 'Votre abonnement est en place.',
  cancelTitle: 'Résilier votre abonnement',
  cancelButton: 'Résilier l’abonnement',
  nextCharge: (date) => `Prochain paiement : ${date}.`,
  canceledAtEnd: (date) =>
    `Votre abonnement est résilié. Plus rien ne sera prélevé ; il prend fin le ${date}.`,
  canceledNow: 'Votre abonnement est résilié. Plus rien ne sera prélevé.',
  alreadyOver: 'Cet abonnement a déjà pris fin.',
  usedText: 'Ce lien de résiliation a déjà été utilisé.',
  expiredText: 'Ce lien de résiliation a expiré. Demandez-en un nouveau au commerçant.',
  notFoundTitle: 'Lien introuvable',
  notFoundText: 'Il n’y a pas de lien de résiliation à cette adresse. Vérifiez le lien reçu.',
};

const ES_INTERVALS: Record<Interval, [string, string]> = {
  day: ['al día', 'días'],
  week: ['a la semana', 'semanas'],
  month: ['al mes', 'meses'],
  year: ['al año', 'años'],
};

const es: SubscriptionMessages = {
  every: (interval, count) =>
    count === 1 ? ES_INTERVALS[interval][0] : `cada ${count} ${ES_INTERVALS[interval][1]}`,
  terms: (amount, every, cycles) =>
    cycles === null
      ? `${amount} ${every}, hasta que canceles.`
      : `${amount} ${every}, ${cycles} veces en total.`,
  trial: (days) => `Gratis durante ${days} días: el primer cobro llega al terminar la prueba.`,
  howToCancel: (merchant) =>
    `Puedes cancelar cuando quieras: pide ${merchant ? `a ${merchant}` : 'al comercio'} un enlace de cancelación y cancela allí con un clic.`,
  laterPeriods: 'Este método de pago también se cobrará en los próximos periodos de la suscripción.',
  subscribedText: 'Tu suscripción está activa.',
  cancelTitle: 'Cancelar tu suscripción',
  cancelButton: 'Cancelar suscripción',
  nextCharge: (date) => `Próximo cobro: ${date}.`,
  canceledAtEnd: (date) => `Tu suscripción está cancelada. No se cobrará nada más; termina el ${date}.`,
  canceledNow: 'Tu suscripción está cancelada. No se cobrará nada más.',
  alreadyOver: 'Esta suscripción ya ha terminado.',
  usedText: 'Este enlace de cancelación ya se ha usado.',
  expiredText: 'Este enlace de cancelación ha caducado. Pide uno nuevo al comercio.',
  notFoundTitle: 'Enlace no encontrado',
  notFoundText: 'No hay ningún enlace de cancelación en esta dirección. Comprueba el enlace recibido.',
};

const MESSAGES: Record<PageLanguage, SubscriptionMessages> = { en, nl, de, fr, es };

/** The subscription texts for a locale tag; English for anything we do not speak. */
export const subscriptionMessagesFor = (locale: string): SubscriptionMessages => MESSAGES[languageOf(locale)];
