import type { Interval } from '../../../domain/subscription-schedule.ts';
import type { SubscriptionTexts } from './subscription-texts.ts';

const units: Record<Interval, readonly [string, string]> = {
  day: ['día', 'días'],
  week: ['semana', 'semanas'],
  month: ['mes', 'meses'],
  year: ['año', 'años'],
};

/** Subscriptions in Spanish. */
export const subscriptionEs: SubscriptionTexts = {
  title: 'Suscripciones',
  titleOf: (id) => `Suscripción ${id}`,
  newestFirst: 'Las más recientes primero',
  none: 'No hay suscripciones.',
  statuses: {
    trialing: 'en prueba',
    active: 'activa',
    past_due: 'vencida',
    canceled: 'cancelada',
    ended: 'finalizada',
  },
  subscription: 'Suscripción',
  every: (amount, count, interval) =>
    count === 1 ? `${amount} cada ${units[interval][0]}` : `${amount} cada ${count} ${units[interval][1]}`,
  cycles: (count) => `${count} periodos en total`,
  trialDays: (days) => `${days} días de prueba`,
  currentPeriod: 'Periodo actual',
  period: (number, start, end) => `${number === 0 ? 'Prueba' : `Periodo ${number}`}: del ${start} al ${end}`,
  periodName: (number) => (number === 0 ? 'Prueba' : `Periodo ${number}`),
  periodsPaid: 'Periodos pagados',
  nextCharge: 'Próximo cobro',
  noNextCharge: 'ninguno previsto',
  endsAtPeriodEnd: (end) => `Se cancela al final del periodo, ${end}`,
  canceledAt: 'Cancelada',
  cancellationReasons: {
    requested: 'por el comercio',
    buyer: 'por el comprador',
    payment_failed: 'pagos fallidos',
  },
  endedAt: 'Finalizada',
  connection: 'Conexión',
  mandate: 'Mandato',
  firstPayment: 'Primer pago',
  metadata: 'Metadatos',
  latestFailure: 'Último fallo',
  declineClasses: {
    soft: 'rechazo temporal',
    hard: 'rechazo definitivo',
    authentication_required: 'autenticación requerida',
  },
  failedAttempts: (count, period) =>
    `Periodo ${period}: ${count} ${count === 1 ? 'intento rechazado' : 'intentos rechazados'}`,
  nextRetry: (at) => `próximo intento ${at}`,
  givingUp: (at) => `sin más intentos: impagado el ${at}`,
  updateLink: 'Enlace donde el comprador la paga',
  renewals: 'Renovaciones',
  noRenewals: 'Aún no se ha cobrado ninguna renovación.',
  decline: 'Rechazo',
  cancel: 'Cancelar la suscripción',
  cancelNow: 'Cancelar ahora',
  cancelAtPeriodEnd: 'Cancelar al final del periodo',
  confirmNow: (id) => `¿Cancelar la suscripción ${id} ahora? No se cobrará nada más.`,
  confirmAtPeriodEnd: (id, end) =>
    `¿Cancelar la suscripción ${id} al final del periodo pagado, ${end}? No se cobrará nada más.`,
  pastDueNow: 'Su periodo está impagado: se cancela ahora en cualquier caso.',
  confirm: 'Sí, cancelarla',
  back: 'Volver sin cambiar nada',
  canceledNotice: 'Suscripción cancelada.',
  endingNotice: 'La suscripción se cancelará al final de su periodo.',
};
