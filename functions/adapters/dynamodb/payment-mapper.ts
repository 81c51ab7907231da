import type { PaymentBuyer } from '../../domain/buyer.ts';
import type { CustomFieldAnswer } from '../../domain/custom-fields.ts';
import { DECLINE_CLASSES } from '../../domain/mandates.ts';
import { FAILURE_CODES, PAYMENT_STATES, type Payment, type PaymentDecline } from '../../domain/payment.ts';
import {
  classified,
  FAILURE_CLASSES,
  type FailureClass,
  type PaymentFailure,
  type ReportedFailure,
} from '../../domain/payment-failure.ts';
import { FEE_SOURCES, type PaymentFee } from '../../domain/payment-money.ts';
import { firstRetentionCheck, holdsPersonalData } from '../../domain/personal-data.ts';
import { storedProvider } from './connection-mapper.ts';
import {
  amount,
  arrayOf,
  type Decoder,
  type FieldDecoders,
  itemDecoder,
  literal,
  mode,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
  wholeMap,
} from './item-decoder.ts';
import { fromStoredRouting, type StoredRouting, storedRouting, toStoredRouting } from './routing-item.ts';
import { bookEntryKeys, bookKeys, paymentKeys, shardOf } from './table-schema.ts';

const storedFailure = objectOf<ReportedFailure & { class: FailureClass | undefined }>({
  code: oneOf(FAILURE_CODES),
  message: string,
  class: optional(oneOf(FAILURE_CLASSES)),
});

/** A failure; one stored before its `class` (2026-11-29) gets its code's (`classified`). */
const failure: Decoder<PaymentFailure> = (value) => {
  const stored = storedFailure(value);
  return stored.class
    ? { code: stored.code, class: stored.class, message: stored.message }
    : classified(stored);
};

/** A payment as its item holds it: the routing decision small (`StoredRouting`). */
type StoredPayment = Omit<Payment, 'routing'> & { routing?: StoredRouting };

/**
 * A payment's fields. Every payment since the first (2026-11-23) has the required ones; the optional ones came
 * later and are absent on older payments, which is what the domain reads them as (`Payment` says what each
 * absence means: an older payment's `amount` is its link's, read with `paymentAmount`). A field added later
 * that the domain needs on every payment gets its default here (`withDefault`).
 */
const paymentFields = (): FieldDecoders<StoredPayment> => ({
  id: string,
  link_id: string,
  account: string,
  mode,
  connection_id: string,
  provider: storedProvider,
  status: oneOf(PAYMENT_STATES),
  amount: optional(amount),
  provider_reference: nullable(string),
  failure: nullable(failure),
  // Since 2026-11-29 (decline tables): on a pending payment whose PSP refused a try; absent: none refused.
  declined_attempt: optional(failure),
  // Since 2026-11-29: on a pending payment past its session's end whose PSP says its money is under way.
  money_under_way: optional(literal(true)),
  session_id: nullable(string),
  session_expires_at: nullable(string),
  session_url: optional(nullable(string)),
  next_check_at: nullable(string),
  checks: number,
  opened_by: optional(string),
  first_attempt_id: optional(string),
  ended_unused: optional(literal(true)),
  // Since 2026-11-29 (outages feed health): on a trial session's payment only.
  health_trial: optional(literal(true)),
  capture: optional(oneOf(['claimed', 'released'])),
  routing: optional(storedRouting),
  client_reference_id: optional(string),
  buyer: optional(wholeMap<PaymentBuyer>()),
  custom_fields: optional(arrayOf(wholeMap<CustomFieldAnswer>())),
  quantities: optional(arrayOf(number)),
  retention_check_at: optional(string),
  // Since 2026-11-29 (the books' money): absent on older payments until `npm run backfill-books` copies them.
  fee: optional(objectOf<PaymentFee>({ amount, net: amount, source: oneOf(FEE_SOURCES) })),
  refunded_minor: optional(number),
  refunded_version: optional(number),
  // Since 2026-11-30 (subscriptions): on a renewal's payment only.
  subscription_id: optional(string),
  decline: optional(objectOf<PaymentDecline>({ class: oneOf(DECLINE_CLASSES), code: string })),
  created_at: string,
  updated_at: string,
  version: number,
});

const decodePayment = /* @__PURE__ */ itemDecoder('payment', paymentFields);

/** The payment in a stored item (docs/data-model.md#reading-an-item), its routing decision expanded. */
export function paymentFromItem(item: Record<string, unknown>): Payment {
  const { routing, ...payment } = decodePayment(item);
  return routing ? { ...payment, routing: fromStoredRouting(routing, payment.connection_id) } : payment;
}

/**
 * The payment's place in gsi3, sparse: while pending, the check sweeper's list by its next check; once settled
 * and holding personal data, the retention sweep's list by its next retention check; otherwise none.
 */
function timelineKeys(payment: Payment) {
  if (payment.next_check_at) {
    return {
      gsi3pk: paymentKeys.checkShard(shardOf(payment.id)),
      gsi3sk: `${payment.next_check_at}#${payment.id}`,
    };
  }
  if (payment.status === 'pending' || !holdsPersonalData(payment)) return {};
  const checkAt = payment.retention_check_at ?? firstRetentionCheck(payment);
  return { gsi3pk: paymentKeys.retentionShard(shardOf(payment.id)), gsi3sk: `${checkAt}#${payment.id}` };
}

/** The stored item of a payment, with its keys and index entries. */
export function paymentToItem({ routing, ...payment }: Payment) {
  return {
    ...paymentKeys.payment(payment.link_id, payment.mode, payment.id),
    // The account's books: keys only, which never change, so only the payment's first write writes them.
    ...bookEntryKeys(
      bookKeys.payments(payment.account, payment.mode),
      (reference) => bookKeys.paymentsByReference(payment.account, payment.mode, reference),
      payment,
    ),
    ...timelineKeys(payment),
    ...payment,
    ...(routing ? { routing: toStoredRouting(routing) } : {}),
  };
}
