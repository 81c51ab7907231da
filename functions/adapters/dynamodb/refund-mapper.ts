import type { RefundEntry } from '../../domain/books.ts';
import { REFUND_REASONS, REFUND_STATUSES, type Refund } from '../../domain/payment-link.ts';
import { storedProvider } from './connection-mapper.ts';
import {
  amount,
  type FieldDecoders,
  itemDecoder,
  lazy,
  literal,
  mode,
  nullable,
  objectOf,
  oneOf,
  optional,
  string,
} from './item-decoder.ts';

/** A refund's fields, stored since refunds exist (2026-11-23), but for its reason (2026-11-29, when given). */
const refundFields = (): FieldDecoders<Refund> => ({
  id: string,
  object: literal('refund'),
  payment_link_id: string,
  payment_id: string,
  status: oneOf(REFUND_STATUSES),
  amount,
  failure: nullable(objectOf<{ code: string; message: string }>({ code: string, message: string })),
  provider_reference: nullable(string),
  reason: optional(oneOf(REFUND_REASONS)),
  reason_detail: optional(string),
  created_at: string,
  updated_at: string,
});

/** A refund in its link's `refunds` (link-mapper.ts). */
export const refund = /* @__PURE__ */ lazy(() => objectOf<Refund>(refundFields()));

/**
 * A refund's entry in the books (docs/data-model.md#books), written since 2026-11-28: the refund, with what the
 * filters ask of its payment; `client_reference_id` only when the payment had one, until it is erased.
 */
export const refundEntryFromItem = /* @__PURE__ */ itemDecoder<RefundEntry>('refund entry', () => ({
  ...refundFields(),
  account: string,
  mode,
  connection_id: string,
  provider: storedProvider,
  client_reference_id: optional(string),
}));
