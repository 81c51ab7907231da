import type { Interval } from '../../../domain/subscription-schedule.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';

const units: Record<Interval, readonly [string, string]> = {
  day: ['dag', 'dagen'],
  week: ['week', 'weken'],
  month: ['maand', 'maanden'],
  year: ['jaar', 'jaar'],
};

/** Subscriptions in Dutch. */
export const subscriptionNl: SubscriptionTexts = {
  title: 'Abonnementen',
  titleOf: (id) => `Abonnement ${id}`,
  newestFirst: 'Nieuwste eerst',
  none: 'Geen abonnementen.',
  statuses: {
    trialing: 'proefperiode',
    active: 'actief',
    past_due: 'achterstallig',
    canceled: 'opgezegd',
    ended: 'beëindigd',
  },
  subscription: 'Abonnement',
  every: (amount, count, interval) =>
    count === 1 ? `${amount} per ${units[interval][0]}` : `${amount} elke ${count} ${units[interval][1]}`,
  cycles: (count) => `${count} perioden in totaal`,
  trialDays: (days) => `${days} dagen proefperiode`,
  currentPeriod: 'Huidige periode',
  period: (number, start, end) =>
    `${number === 0 ? 'Proefperiode' : `Periode ${number}`}: ${start} tot ${end}`,
  periodName: (number) => (number === 0 ? 'Proefperiode' : `Periode ${number}`),
  periodsPaid: 'Betaalde perioden',
  nextCharge: 'Volgende afschrijving',
  noNextCharge: 'geen gepland',
  endsAtPeriodEnd: (end) => `Wordt opgezegd aan het einde van de periode, ${end}`,
  canceledAt: 'Opgezegd',
  cancellationReasons: {
    requested: 'door de verkoper',
    buyer: 'door de koper',
    payment_failed: 'betalingen mislukt',
  },
  endedAt: 'Beëindigd',
  connection: 'Koppeling',
  mandate: 'Machtiging',
  firstPayment: 'Eerste betaling',
  metadata: 'Metadata',
  latestFailure: 'Laatste mislukking',
  declineClasses: {
    soft: 'tijdelijke weigering',
    hard: 'definitieve weigering',
    authentication_required: 'authenticatie vereist',
  },
  failedAttempts: (count, period) =>
    `Periode ${period}: ${count} ${count === 1 ? 'poging' : 'pogingen'} geweigerd`,
  nextRetry: (at) => `volgende poging ${at}`,
  givingUp: (at) => `geen poging meer: onbetaald op ${at}`,
  updateLink: 'Link waarmee de koper betaalt',
  renewals: 'Verlengingen',
  noRenewals: 'Nog geen verlenging afgeschreven.',
  decline: 'Weigering',
  cancel: 'Abonnement opzeggen',
  cancelNow: 'Nu opzeggen',
  cancelAtPeriodEnd: 'Opzeggen aan het einde van de periode',
  confirmNow: (id) => `Abonnement ${id} nu opzeggen? Er wordt niets meer afgeschreven.`,
  confirmAtPeriodEnd: (id, end) =>
    `Abonnement ${id} opzeggen aan het einde van de betaalde periode, ${end}? Er wordt niets meer afgeschreven.`,
  pastDueNow: 'De periode is onbetaald: het wordt hoe dan ook nu opgezegd.',
  confirm: 'Ja, opzeggen',
  back: 'Terug, niets wijzigen',
  canceledNotice: 'Abonnement opgezegd.',
  endingNotice: 'Het abonnement wordt opgezegd aan het einde van de periode.',
};
