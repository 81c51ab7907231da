/**
 * The one route table. The CDK stack (lib/constructs/merchant-api.ts) and the local stack (lib/local/) both
 * read it, so what runs locally is what deploys. Pure data: no CDK import, so handlers may read it too.
 *
 * `handler` names a file in functions/handlers/ (without `.ts`) that exports `handler`; routes that share a
 * handler share one Lambda function. `table` lists the DynamoDB actions that function needs, which the stack
 * turns into a least-privilege policy.
 */
export type TableAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

export interface RouteDefinition {
  method: 'GET' | 'POST' | 'HEAD';
  /** API Gateway path template, e.g. `/v1/payment-links/{id}`. */
  path: string;
  handler: string;
}

export interface FunctionDefinition {
  table: readonly TableAction[];
  /** Sends to the webhook event queue (functions whose transitions emit events). */
  sendsEvents?: boolean;
}

/**
 * Functions run on a timer: an EventBridge schedule on AWS, an interval in the local stack (shorter, so that
 * what happens every minute on AWS is seen within seconds locally).
 */
export interface ScheduleDefinition {
  handler: HandlerName;
  everyMinutes: number;
  localEverySeconds: number;
}

/** Per-function needs, keyed by handler file. */
export const functions = {
  'create-payment-link': { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  'get-payment-link': { table: ['GetItem', 'UpdateItem'] },
  'route-fallback': { table: [] },
  'list-payment-links': { table: ['GetItem', 'UpdateItem', 'Query'] },
  'cancel-payment-link': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    sendsEvents: true,
  },
  'expire-links': { table: ['GetItem', 'PutItem', 'DeleteItem', 'Query'], sendsEvents: true },
  'get-openapi': { table: [] },
} as const satisfies Record<string, FunctionDefinition>;

export type HandlerName = keyof typeof functions;

export const routes: readonly (RouteDefinition & { handler: HandlerName })[] = [
  { method: 'POST', path: '/v1/payment-links', handler: 'create-payment-link' },
  { method: 'GET', path: '/v1/payment-links/{id}', handler: 'get-payment-link' },
  { method: 'GET', path: '/v1/payment-links', handler: 'list-payment-links' },
  { method: 'POST', path: '/v1/payment-links/{id}/cancel', handler: 'cancel-payment-link' },
  { method: 'GET', path: '/v1/openapi.json', handler: 'get-openapi' },
];

export const schedules: readonly ScheduleDefinition[] = [
  { handler: 'expire-links', everyMinutes: 1, localEverySeconds: 5 },
];

/** The queue that carries webhook events from transitions to delivery. */
export const EVENTS_QUEUE_NAME = 'payment-links-events';

/** Paths we serve, each with the methods it allows: anything else on them is a 405 with `Allow`. */
export function allowedMethodsByPath(): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route.method]);
  return byPath;
}

/** The handler that answers 405 for known paths with other methods and 404 for unknown paths. */
export const FALLBACK_HANDLER: HandlerName = 'route-fallback';
