import type { Interval } from '../../../domain/subscription-schedule.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';

const units: Record<Interval, readonly [string, string]> = {
  day: ['jour', 'jours'],
  week: ['semaine', 'semaines'],
  month: ['mois', 'mois'],
  year: ['an', 'ans'],
};

/** Subscriptions in French. */
export const subscriptionFr: SubscriptionTexts = {
  title: 'Abonnements',
  titleOf: (id) => `Abonnement ${id}`,
  newestFirst: 'Les plus récents d’abord',
  none: 'Aucun abonnement.',
  statuses: {
    trialing: 'en essai',
    active: 'actif',
    past_due: 'impayé',
    canceled: 'résilié',
    ended: 'terminé',
  },
  subscription: 'Abonnement',
  every: (amount, count, interval) =>
    count === 1 ? `${amount} par ${units[interval][0]}` : `${amount} tous les ${count} ${units[interval][1]}`,
  cycles: (count) => `${count} périodes en tout`,
  trialDays: (days) => `${days} jours d’essai`,
  currentPeriod: 'Période en cours',
  period: (number, start, end) => `${number === 0 ? 'Essai' : `Période ${number}`} : du ${start} au ${end}`,
  periodName: (number) => (number === 0 ? 'Essai' : `Période ${number}`),
  periodsPaid: 'Périodes payées',
  nextCharge: 'Prochain prélèvement',
  noNextCharge: 'aucun prévu',
  endsAtPeriodEnd: (end) => `Résilié à la fin de la période, ${end}`,
  canceledAt: 'Résilié',
  cancellationReasons: {
    requested: 'par le marchand',
    buyer: 'par l’acheteur',
    payment_failed: 'paiements échoués',
  },
  endedAt: 'Terminé',
  connection: 'Connexion',
  mandate: 'Mandat',
  firstPayment: 'Premier paiement',
  metadata: 'Métadonnées',
  latestFailure: 'Dernier échec',
  declineClasses: {
    soft: 'refus temporaire',
    hard: 'refus définitif',
    authentication_required: 'authentification requise',
  },
  failedAttempts: (count, period) =>
    `Période ${period} : ${count} ${count === 1 ? 'tentative refusée' : 'tentatives refusées'}`,
  nextRetry: (at) => `prochaine tentative ${at}`,
  givingUp: (at) => `plus de tentative : impayé le ${at}`,
  updateLink: 'Lien où l’acheteur la paie',
  renewals: 'Renouvellements',
  noRenewals: 'Aucun renouvellement prélevé pour l’instant.',
  decline: 'Refus',
  cancel: 'Résilier l’abonnement',
  cancelNow: 'Résilier maintenant',
  cancelAtPeriodEnd: 'Résilier à la fin de la période',
  confirmNow: (id) => `Résilier l’abonnement ${id} maintenant ? Plus rien ne sera prélevé.`,
  confirmAtPeriodEnd: (id, end) =>
    `Résilier l’abonnement ${id} à la fin de la période payée, ${end} ? Plus rien ne sera prélevé.`,
  pastDueNow: 'Sa période est impayée : il est résilié maintenant dans tous les cas.',
  confirm: 'Oui, résilier',
  back: 'Retour, sans rien changer',
  canceledNotice: 'Abonnement résilié.',
  endingNotice: 'L’abonnement sera résilié à la fin de sa période.',
};
