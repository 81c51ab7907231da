import { buyerSetsAmount } from './amount.ts';
import type { Amount } from './money.ts';
import { type Payment, paymentAmount, type ReportedFailure } from './payment.ts';
import type { PaymentLink } from './payment-link.ts';

/**
 * What a PSP says it charged, held against what the payment was for (docs/security.md#amounts-the-psp-reports):
 * a success is taken as paid only at the payment's own amount and currency. A PSP account or session changed
 * behind our back (an order amended to 0.01 USD, a payment link edited in the PSP's dashboard) must never pay a
 * link at 10.00 EUR.
 */
export interface AmountMismatch {
  /** What the payment was for: its session was created at it. */
  expected: Amount;
  /** What the PSP reports it charged; null when it did not say, which confirms nothing. */
  reported: Amount | null;
}

/** The same sum of money: equal currencies and equal decimals, however many trailing zeros each is written with. */
export function sameMoney(a: Amount, b: Amount): boolean {
  return a.currency.toUpperCase() === b.currency.toUpperCase() && decimal(a.value) === decimal(b.value);
}

const decimal = (value: string): string => {
  const [integer = '', fraction = ''] = value.trim().split('.');
  return `${integer.replace(/^0+(?=\d)/, '')}.${fraction.replace(/0+$/, '')}`;
};

/**
 * The mismatch between what the payment was for and what its PSP reports, or undefined when they agree. A PSP
 * that says nothing of the amount (`reported` null) confirms nothing: a mismatch too.
 */
export function chargedAmountMismatch(expected: Amount, reported: Amount | null): AmountMismatch | undefined {
  return reported && sameMoney(expected, reported) ? undefined : { expected, reported };
}

/** An amount as the log and the failure's message write it; `no amount` for one the PSP did not give. */
export const amountText = (amount: Amount | null): string =>
  amount ? `${amount.value} ${amount.currency}` : 'no amount';

/**
 * What a session's payment was for: its record's amount (a buyer-chosen amount, or picked quantities, are known
 * only there); without a record, the link's record of the session, then a fixed amount the buyer cannot change.
 * Undefined when nothing of ours says (a buyer-chosen amount whose record was lost): the PSP's word is taken then.
 */
export function expectedCharge(
  payment: Pick<Payment, 'amount'> | undefined,
  link: PaymentLink,
  sessionId: string,
): Amount | undefined {
  if (payment) return paymentAmount(payment, link);
  if (link.psp_session?.id === sessionId) return link.psp_session.amount;
  return buyerSetsAmount(link) ? undefined : (link.amount ?? undefined);
}

/** The failure a mismatched success is recorded with (`amount_mismatch`), saying both amounts. */
export function amountMismatchFailure({ expected, reported }: AmountMismatch): ReportedFailure {
  return {
    code: 'amount_mismatch',
    message: `The payment provider reported ${amountText(reported)} for a payment of ${amountText(expected)}: not taken as paid.`,
  };
}
