import type { AuditedAction, AuditOutcome, ConsoleRole } from '../../../domain/console-access.ts';
import type { EventType } from '../../../domain/link-events.ts';
import type { PaymentState } from '../../../domain/payment.ts';
import type { LinkStatus, RefundStatus } from '../../../domain/payment-link.ts';
import type { SubscriptionEventType } from '../../../domain/subscription.ts';
import type { EndpointEventType } from '../../../domain/webhook-endpoint.ts';

/**
 * The words for the values the API defines (docs/console.md#languages): statuses, event types, roles, the audit
 * log's actions and outcomes. The pages show these; the API's own word stays beside an event type or an action,
 * where a developer looks for it.
 */
export interface StatusTexts {
  link: Record<LinkStatus, string>;
  payment: Record<PaymentState, string>;
  refund: Record<RefundStatus, string>;
  endpoint: Record<'enabled' | 'disabled', string>;
  events: Record<EventType | EndpointEventType | SubscriptionEventType, string>;
  roles: Record<ConsoleRole, string>;
  actions: Record<AuditedAction, string>;
  outcomes: Record<AuditOutcome, string>;
  /** What an audit entry's target is, by its id's prefix: "refund re_…". */
  targets: Record<'pl' | 'pay' | 're' | 'evt' | 'we' | 'key' | 'sub' | 'pc', string>;
}
