import { isId, newId } from './ids.ts';

/**
 * A payment: one attempt to pay a link through one connection (docs/orchestration.md, "Payments"). Stored
 * beside its link; every change is a transition written conditionally, like the link's.
 */
export const PAYMENT_STATES = ['pending', 'succeeded', 'failed', 'canceled', 'expired'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

/**
 * Why an attempt failed: the documented set. `psp_unavailable` is a failover (the PSP could not open a
 * session); the others come from the PSP's own answer about the attempt.
 */
export const FAILURE_CODES = ['declined', 'expired', 'canceled', 'psp_error', 'psp_unavailable'] as const;
export type PaymentFailureCode = (typeof FAILURE_CODES)[number];

export interface PaymentFailure {
  code: PaymentFailureCode;
  message: string;
}

export const newPaymentId = (): string => newId('pay');
export const isPaymentId = (id: string): boolean => isId('pay', id);
