import type { PaymentTexts } from './payment-texts.ts';

/** A payment's page in German. */
export const paymentDe: PaymentTexts = {
  title: (id) => `Zahlung ${id}`,
  amount: 'Betrag',
  refunded: 'Erstattet',
  remaining: 'Verbleibend',
  fee: 'Gebühr',
  net: 'Netto',
  unknown: 'nicht bekannt',
  failure: 'Fehler',
  pspReference: 'Referenz des PSP',
  connection: 'Verbindung',
  timeline: 'Verlauf',
  opened: (connection) => `Zur Zahlungsseite von ${connection} geleitet`,
  lastChange: (status) => `Letzte Änderung: ${status}`,
  refund: (id, amount, status) => `Erstattung ${id} über ${amount}: ${status}`,
  event: (type) => `Webhook-Ereignis ${type}`,
};
