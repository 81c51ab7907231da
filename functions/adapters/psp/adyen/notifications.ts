import type { NotificationRequestItem } from '@adyen/api-library/lib/src/typings/notification/notificationRequestItem.js';
import { InvalidNotificationError } from '../../../domain/errors.ts';
import type { PspRefundStatus } from '../../../ports/psp.ts';

/**
 * The notifications about a refund (Adyen/adyen-openapi Webhooks-v1; `pspReference` is the refund's): its
 * outcome, and the two that fail it later, after a REFUND (docs/webhooks.md#refunds).
 */
const REFUND_EVENTS = new Set(['REFUND', 'REFUND_FAILED', 'REFUNDED_REVERSED']);

interface NotificationRequest {
  live?: unknown;
  notificationItems?: { NotificationRequestItem?: NotificationRequestItem }[];
}

/** The items of a notification batch (any of them possibly missing) and its `live` flag; throws unless it is one. */
export function notificationBatchOf(rawBody: string): {
  items: (NotificationRequestItem | undefined)[];
  livemode: boolean;
} {
  let request: NotificationRequest;
  try {
    request = JSON.parse(rawBody) as NotificationRequest;
  } catch {
    throw new InvalidNotificationError('Not an Adyen notification.');
  }
  const items = (Array.isArray(request?.notificationItems) ? request.notificationItems : []).map(
    (entry) => entry?.NotificationRequestItem,
  );
  if (items.length === 0 || (request.live !== 'true' && request.live !== 'false')) {
    throw new InvalidNotificationError('Not an Adyen notification.');
  }
  return { items, livemode: request.live === 'true' };
}

/** A payment made on a payment link, as a verified AUTHORISATION item tells it. */
export interface Authorisation {
  pspReference: string;
  merchantReference: string;
  amount: { value: number; currency: string };
}

export function authorisationOf(item: NotificationRequestItem): Authorisation {
  return {
    pspReference: item.pspReference,
    merchantReference: item.merchantReference,
    amount: { value: Number(item.amount?.value), currency: String(item.amount?.currency) },
  };
}

export const isRefundEvent = (item: NotificationRequestItem): boolean => REFUND_EVENTS.has(item.eventCode);

/**
 * A refund's outcome from a verified notification about it. REFUND_FAILED and REFUNDED_REVERSED come with
 * success "true" (the event happened): the refund failed, even after a REFUND that said it succeeded.
 */
export function refundOutcomeOf(item: NotificationRequestItem): PspRefundStatus {
  const succeeded = item.eventCode === 'REFUND' && item.success === 'true';
  return {
    reference: item.pspReference,
    ...idsOfRefundReference(item.merchantReference),
    state: succeeded ? 'succeeded' : 'failed',
    failureMessage: succeeded ? null : refundFailureMessage(item),
  };
}

function refundFailureMessage(item: NotificationRequestItem): string {
  if (item.eventCode === 'REFUNDED_REVERSED') {
    return `Adyen reversed the refund${item.reason ? `: ${item.reason}` : ''}.`;
  }
  return item.reason || 'Adyen could not refund the payment.';
}

/**
 * Our ids in a refund's merchant reference (`pl_…/re_…`, as `refund` sends it), which Adyen echoes in the
 * REFUND notification: Adyen keeps no metadata on a modification.
 */
function idsOfRefundReference(merchantReference: string | undefined): {
  linkId: string | null;
  refundId: string | null;
} {
  const [linkId, refundId, ...rest] = (merchantReference ?? '').split('/');
  if (!linkId || !refundId || rest.length > 0) return { linkId: null, refundId: null };
  return { linkId, refundId };
}
