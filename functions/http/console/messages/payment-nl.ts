import type { PaymentTexts } from './payment-texts.ts';

/** A payment's page in Dutch. */
export const paymentNl: PaymentTexts = {
  title: (id) => `Betaling ${id}`,
  amount: 'Bedrag',
  refunded: 'Terugbetaald',
  remaining: 'Resterend',
  fee: 'Kosten',
  net: 'Netto',
  unknown: 'niet bekend',
  failure: 'Fout',
  pspReference: 'Referentie van de PSP',
  connection: 'Koppeling',
  timeline: 'Tijdlijn',
  opened: (connection) => `Naar de betaalpagina van ${connection} gestuurd`,
  lastChange: (status) => `Laatste wijziging: ${status}`,
  refund: (id, amount, status) => `Terugbetaling ${id} van ${amount}: ${status}`,
  event: (type) => `Webhookgebeurtenis ${type}`,
};
