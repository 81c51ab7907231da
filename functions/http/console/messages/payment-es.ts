import type { PaymentTexts } from './payment-texts.ts';

/** A payment's page in Spanish. */
export const paymentEs: PaymentTexts = {
  title: (id) => `Pago ${id}`,
  amount: 'Importe',
  refunded: 'Reembolsado',
  remaining: 'Restante',
  fee: 'Comisión',
  net: 'Neto',
  unknown: 'desconocido',
  failure: 'Fallo',
  pspReference: 'Referencia del PSP',
  connection: 'Conexión',
  timeline: 'Cronología',
  opened: (connection) => `Enviado a la página de pago de ${connection}`,
  lastChange: (status) => `Último cambio: ${status}`,
  refund: (id, amount, status) => `Reembolso ${id} de ${amount}: ${status}`,
  event: (type) => `Evento de webhook ${type}`,
};
