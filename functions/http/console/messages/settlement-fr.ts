import type { SettlementTexts } from './settlement-texts.ts';

/** Settlements in French. */
export const settlementFr: SettlementTexts = {
  title: 'Versements',
  titleOf: (id) => `Versement ${id}`,
  arrivalFrom: 'Arrivée à partir du',
  arrivalTo: 'Arrivée jusqu’au',
  connection: 'Connexion',
  anyConnection: 'Toute connexion',
  newestFirst: 'Arrivée la plus récente d’abord',
  none: 'Aucun versement.',
  settlement: 'Versement',
  provider: 'PSP',
  arrival: 'Date d’arrivée',
  noArrival: 'pas encore connue',
  statuses: {
    pending: 'en attente',
    in_transit: 'en transit',
    paid: 'versé',
    failed: 'échoué',
    canceled: 'annulé',
  },
  matched: 'Rapprochées',
  unmatched: 'Non rapprochées',
  pspReference: 'Référence du PSP',
  kind: 'Type',
  kinds: { payment: 'paiement', refund: 'remboursement', other: 'autre' },
  fee: 'Frais',
  net: 'Net',
  matchedLines: 'Paiements et remboursements',
  noMatchedLines: 'Aucune ligne de ce versement n’est l’un de nos paiements ou remboursements.',
  unmatchedLines: 'Non rapprochées',
  unmatchedIntro:
    'Les lignes versées par le PSP qui ne sont aucun de nos paiements ou remboursements, avec la référence du PSP.',
  noUnmatchedLines: 'Chaque ligne est rapprochée.',
  paymentReference: 'Référence de paiement du PSP',
  refundOf: (refund) => `remboursement ${refund}`,
  download: 'Télécharger le CSV',
  downloadLines: 'Télécharger ses lignes en CSV',
  tooMany: (limit) =>
    `Plus de ${limit} versements : choisissez moins de jours d’arrivée pour les télécharger.`,
};
