import type { PaymentTexts } from './payment-texts.ts';

/** A payment's page in French. */
export const paymentFr: PaymentTexts = {
  title: (id) => `Paiement ${id}`,
  amount: 'Montant',
  refunded: 'Remboursé',
  remaining: 'Restant',
  fee: 'Frais',
  net: 'Net',
  unknown: 'inconnu',
  failure: 'Échec',
  pspReference: 'Référence du PSP',
  connection: 'Connexion',
  timeline: 'Chronologie',
  opened: (connection) => `Envoyé vers la page de paiement de ${connection}`,
  lastChange: (status) => `Dernier changement : ${status}`,
  refund: (id, amount, status) => `Remboursement ${id} de ${amount} : ${status}`,
  event: (type) => `Événement webhook ${type}`,
};
