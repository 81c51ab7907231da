import { type ExportColumns, type ExportRow, METADATA_PREFIX } from './book-exports.ts';
import type { SubscriptionResource } from './subscription-events.ts';

/**
 * The subscriptions' CSV export (docs/api.md#subscriptions), pure: its columns, in order, for API version 1 (this
 * list is the default header and never changes within the version), then `metadata.<key>` for each key present.
 */
export const SUBSCRIPTION_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'status',
  'amount',
  'currency',
  'interval',
  'interval_count',
  'trial_days',
  'cycles',
  'current_period',
  'current_period_start',
  'current_period_end',
  'periods_paid',
  'next_charge_at',
  'cancel_at_period_end',
  'canceled_at',
  'cancellation_reason',
  'ended_at',
  'link_id',
  'first_payment_id',
  'connection_id',
  'provider',
  'client_reference_id',
  'description',
  'latest_failure_class',
  'latest_failure_code',
] as const;

export const SUBSCRIPTION_EXPORT: ExportColumns = { fixed: SUBSCRIPTION_COLUMNS, keyed: [METADATA_PREFIX] };

const text = (value: string | number | null) => (value === null ? '' : String(value));

export function subscriptionRow(subscription: SubscriptionResource): ExportRow {
  return {
    id: subscription.id,
    created_at: subscription.created_at,
    updated_at: subscription.updated_at,
    status: subscription.status,
    amount: subscription.amount.value,
    currency: subscription.amount.currency,
    interval: subscription.recurring.interval,
    interval_count: text(subscription.recurring.interval_count),
    trial_days: text(subscription.recurring.trial_days),
    cycles: text(subscription.recurring.cycles),
    current_period: text(subscription.current_period),
    current_period_start: subscription.current_period_start,
    current_period_end: subscription.current_period_end,
    periods_paid: text(subscription.periods_paid),
    next_charge_at: text(subscription.next_charge_at),
    cancel_at_period_end: String(subscription.cancel_at_period_end),
    canceled_at: text(subscription.canceled_at),
    cancellation_reason: text(subscription.cancellation_reason),
    ended_at: text(subscription.ended_at),
    link_id: subscription.link_id,
    first_payment_id: subscription.first_payment_id,
    connection_id: subscription.mandate.connection_id,
    provider: subscription.mandate.provider,
    client_reference_id: text(subscription.client_reference_id),
    description: text(subscription.description),
    latest_failure_class: text(subscription.latest_failure?.class ?? null),
    latest_failure_code: text(subscription.latest_failure?.code ?? null),
    ...Object.fromEntries(
      Object.entries(subscription.metadata ?? {}).map(([key, value]) => [`${METADATA_PREFIX}${key}`, value]),
    ),
  };
}
