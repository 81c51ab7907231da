import type { PaymentTexts } from './payment-texts.ts';

/** A payment's page in English. */
export const paymentEn: PaymentTexts = {
  title: (id) => `Payment ${id}`,
  amount: 'Amount',
  refunded: 'Refunded',
  remaining: 'Remaining',
  fee: 'Fee',
  net: 'Net',
  unknown: 'not known',
  failure: 'Failure',
  pspReference: 'PSP reference',
  connection: 'Connection',
  timeline: 'Timeline',
  opened: (connection) => `Sent to the payment page of ${connection}`,
  lastChange: (status) => `Last change: ${status}`,
  refund: (id, amount, status) => `Refund ${id} of ${amount}: ${status}`,
  event: (type) => `Webhook event ${type}`,
};
