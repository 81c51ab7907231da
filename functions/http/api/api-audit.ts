import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../config.ts';
import { consoleStore, now } from '../../dependencies.ts';
import type { AuditedAction, AuditSubject } from '../../domain/console-access.ts';
import type { ConsoleStore } from '../../ports/console-store.ts';
import type { ApiCaller } from '../../use-cases/authenticate.ts';
import { auditedChange, type Settlement } from '../../use-cases/console-audit.ts';
import { clientAddress } from '../client-address.ts';

/** What the audit log records a change through the API as, and where its target's id is. */
interface AuditedRoute {
  action: AuditedAction;
  /** The path's `{id}`; the `id` of what the answer made (a refund); or none (a document of the account). */
  target: 'path' | 'made' | 'none';
}

/**
 * The API's changes the audit log records (docs/console.md#audit-log), as the console's own: every route that
 * changes something but a link's create (at up to 3,000 a second from one merchant, past what the log's one
 * partition per account takes; the link itself keeps when it was made, and its events feed says so) and the test
 * clock of test mode.
 */
export const AUDITED_ROUTES: Readonly<Record<string, AuditedRoute>> = {
  'PATCH /v1/payment-links/{id}': { action: 'link.update', target: 'path' },
  'POST /v1/payment-links/{id}/cancel': { action: 'link.cancel', target: 'path' },
  'POST /v1/payment-links/{id}/refunds': { action: 'refund.create', target: 'made' },
  'DELETE /v1/payments/{id}/buyer': { action: 'buyer.erase', target: 'path' },
  'POST /v1/events/{id}/redeliver': { action: 'event.redeliver', target: 'path' },
  'POST /v1/webhook-endpoints': { action: 'webhook.manage', target: 'made' },
  'PATCH /v1/webhook-endpoints/{id}': { action: 'webhook.manage', target: 'path' },
  'DELETE /v1/webhook-endpoints/{id}': { action: 'webhook.manage', target: 'path' },
  'POST /v1/webhook-endpoints/{id}/test': { action: 'webhook.manage', target: 'path' },
  'POST /v1/webhook-endpoints/{id}/recover': { action: 'webhook.manage', target: 'path' },
  'POST /v1/webhook-endpoints/{id}/rotate-secret': { action: 'webhook.manage', target: 'path' },
  'PUT /v1/routing': { action: 'routing.edit', target: 'none' },
  'PUT /v1/checkout-settings': { action: 'settings.edit', target: 'none' },
  'PUT /v1/account-settings': { action: 'account.edit', target: 'none' },
  'PATCH /v1/subscriptions/{id}': { action: 'subscription.update', target: 'path' },
  'POST /v1/subscriptions/{id}/cancel': { action: 'subscription.cancel', target: 'path' },
  'POST /v1/subscriptions/{id}/cancel-link': { action: 'subscription.update', target: 'path' },
};

/**
 * The API's changes the audit log leaves out, and why: every other route of the API that is not a read is in
 * `AUDITED_ROUTES` (test/unit/api-audit.test.ts), so that a new one cannot go unrecorded unnoticed.
 */
export const UNAUDITED_ROUTES: Readonly<Record<string, string>> = {
  'POST /v1/payment-links': 'a link create: the rate of one merchant would pass what its log takes',
  'POST /v1/test-helpers/subscriptions/{id}/advance': "test mode's clock: moves time, changes no setting",
};

export interface ApiAuditDependencies {
  store: ConsoleStore;
  now: () => Date;
  edgeSecret: string | undefined;
}

/** The JSON object an answer carries, if it carries one. */
function bodyOf(result: APIGatewayProxyStructuredResultV2): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(String(result.body ?? ''));
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A refund made names its amount and payment: "refund re_… of €10.00 on payment pay_…". */
function aboutOf(body: Record<string, unknown>): AuditSubject | undefined {
  if (body.object !== 'refund' || typeof body.payment_id !== 'string') return undefined;
  return { amount: body.amount as AuditSubject['amount'], of: body.payment_id };
}

/** What the answer says became of the change: failed with the problem's code (or status), else made. */
function settlementOf(route: AuditedRoute, result: APIGatewayProxyStructuredResultV2): Settlement {
  const status = result.statusCode ?? 200;
  const body = bodyOf(result);
  if (status >= 400)
    return { outcome: 'failed', reason: typeof body?.code === 'string' ? body.code : String(status) };
  if (route.target !== 'made' || typeof body?.id !== 'string') return { outcome: 'succeeded' };
  const about = aboutOf(body);
  return { outcome: 'succeeded', target: body.id, ...(about && { about }) };
}

/**
 * Runs an API change with its audit entry written first and settled with the answer (`auditedChange`), naming the
 * key that made it (its display prefix and id); a route the log does not record just runs.
 */
export function auditedApiChange(
  deps: ApiAuditDependencies,
  event: APIGatewayProxyEventV2,
  caller: ApiCaller,
  change: () => Promise<APIGatewayProxyStructuredResultV2>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const route = AUDITED_ROUTES[event.routeKey];
  if (!route) return change();
  const actor = {
    ...caller.principal,
    user: `${caller.key.display_prefix} (${caller.key.id})`,
    role: null,
    via: 'api' as const,
  };
  const attempt = {
    action: route.action,
    target: route.target === 'path' ? (event.pathParameters?.id ?? null) : null,
    sourceIp: clientAddress(event as Parameters<typeof clientAddress>[0], deps.edgeSecret),
  };
  return auditedChange(deps, actor, attempt, change, (result) => settlementOf(route, result));
}

/** A route's audit (`MerchantRouteOptions.audit`): runs its change as `auditedApiChange` does. */
export type ApiAudit = (
  event: APIGatewayProxyEventV2,
  caller: ApiCaller,
  change: () => Promise<APIGatewayProxyStructuredResultV2>,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** The audit of the service's API changes, on the account's console store. */
export const apiAudit: ApiAudit = (event, caller, change) =>
  auditedApiChange(
    { store: consoleStore(), now, edgeSecret: config().EDGE_ORIGIN_SECRET },
    event,
    caller,
    change,
  );
