import type { Interval } from '../../../domain/subscription-schedule.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';

const units: Record<Interval, readonly [string, string]> = {
  day: ['Tag', 'Tage'],
  week: ['Woche', 'Wochen'],
  month: ['Monat', 'Monate'],
  year: ['Jahr', 'Jahre'],
};

/** Subscriptions in German. */
export const subscriptionDe: SubscriptionTexts = {
  title: 'Abonnements',
  titleOf: (id) => `Abonnement ${id}`,
  newestFirst: 'Neueste zuerst',
  none: 'Keine Abonnements.',
  statuses: {
    trialing: 'Testphase',
    active: 'aktiv',
    past_due: 'überfällig',
    canceled: 'gekündigt',
    ended: 'beendet',
  },
  subscription: 'Abonnement',
  every: (amount, count, interval) =>
    count === 1 ? `${amount} pro ${units[interval][0]}` : `${amount} alle ${count} ${units[interval][1]}`,
  cycles: (count) => `${count} Perioden insgesamt`,
  trialDays: (days) => `${days} Tage Testphase`,
  currentPeriod: 'Aktuelle Periode',
  period: (number, start, end) => `${number === 0 ? 'Testphase' : `Periode ${number}`}: ${start} bis ${end}`,
  periodName: (number) => (number === 0 ? 'Testphase' : `Periode ${number}`),
  periodsPaid: 'Bezahlte Perioden',
  nextCharge: 'Nächste Abbuchung',
  noNextCharge: 'keine geplant',
  endsAtPeriodEnd: (end) => `Endet mit der Periode, ${end}`,
  canceledAt: 'Gekündigt',
  cancellationReasons: {
    requested: 'vom Händler',
    buyer: 'vom Käufer',
    payment_failed: 'Zahlungen fehlgeschlagen',
  },
  endedAt: 'Beendet',
  connection: 'Verbindung',
  mandate: 'Mandat',
  firstPayment: 'Erste Zahlung',
  metadata: 'Metadaten',
  latestFailure: 'Letzter Fehlschlag',
  declineClasses: {
    soft: 'vorübergehend abgelehnt',
    hard: 'endgültig abgelehnt',
    authentication_required: 'Authentifizierung nötig',
  },
  failedAttempts: (count, period) =>
    `Periode ${period}: ${count} ${count === 1 ? 'Versuch' : 'Versuche'} abgelehnt`,
  nextRetry: (at) => `nächster Versuch ${at}`,
  givingUp: (at) => `kein Versuch mehr: unbezahlt am ${at}`,
  updateLink: 'Link, über den der Käufer zahlt',
  renewals: 'Verlängerungen',
  noRenewals: 'Noch keine Verlängerung abgebucht.',
  decline: 'Ablehnung',
  cancel: 'Abonnement kündigen',
  cancelNow: 'Jetzt kündigen',
  cancelAtPeriodEnd: 'Zum Ende der Periode kündigen',
  confirmNow: (id) => `Abonnement ${id} jetzt kündigen? Es wird nichts mehr abgebucht.`,
  confirmAtPeriodEnd: (id, end) =>
    `Abonnement ${id} zum Ende der bezahlten Periode, ${end}, kündigen? Es wird nichts mehr abgebucht.`,
  pastDueNow: 'Die Periode ist unbezahlt: Es wird in jedem Fall jetzt gekündigt.',
  confirm: 'Ja, kündigen',
  back: 'Zurück, nichts ändern',
  canceledNotice: 'Abonnement gekündigt.',
  endingNotice: 'Das Abonnement endet mit seiner Periode.',
};
