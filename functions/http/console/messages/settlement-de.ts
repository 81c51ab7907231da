import type { SettlementTexts } from './settlement-texts.ts';

/** Settlements in German. */
export const settlementDe: SettlementTexts = {
  title: 'Auszahlungen',
  titleOf: (id) => `Auszahlung ${id}`,
  arrivalFrom: 'Eingang ab',
  arrivalTo: 'Eingang bis',
  connection: 'Verbindung',
  anyConnection: 'Jede Verbindung',
  newestFirst: 'Neuester Eingang zuerst',
  none: 'Keine Auszahlungen.',
  settlement: 'Auszahlung',
  provider: 'PSP',
  arrival: 'Eingangsdatum',
  noArrival: 'noch nicht bekannt',
  statuses: {
    pending: 'ausstehend',
    in_transit: 'unterwegs',
    paid: 'ausgezahlt',
    failed: 'fehlgeschlagen',
    canceled: 'storniert',
  },
  matched: 'Zugeordnet',
  unmatched: 'Nicht zugeordnet',
  pspReference: 'PSP-Referenz',
  kind: 'Art',
  kinds: { payment: 'Zahlung', refund: 'Erstattung', other: 'Sonstiges' },
  fee: 'Gebühr',
  net: 'Netto',
  matchedLines: 'Zahlungen und Erstattungen',
  noMatchedLines: 'Keine Position dieser Auszahlung ist eine unserer Zahlungen oder Erstattungen.',
  unmatchedLines: 'Nicht zugeordnet',
  unmatchedIntro:
    'Positionen, die der PSP ausgezahlt hat und die keine unserer Zahlungen oder Erstattungen sind, mit der Referenz des PSP.',
  noUnmatchedLines: 'Jede Position ist zugeordnet.',
  paymentReference: 'Zahlungsreferenz des PSP',
  refundOf: (refund) => `Erstattung ${refund}`,
  download: 'CSV herunterladen',
  downloadLines: 'Positionen als CSV herunterladen',
  tooMany: (limit) =>
    `Mehr als ${limit} Auszahlungen: wählen Sie weniger Eingangstage, um sie herunterzuladen.`,
};
