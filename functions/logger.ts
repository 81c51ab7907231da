import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { mapErrorStack, sourceMappedStack } from './source-mapped-stack.ts';

/**
 * One structured JSON logger for every function. Request bodies, API keys and secrets are never passed to it:
 * handlers log the route, status and ids only (see `functions/http/api/api-handler.ts`). Field names are
 * snake_case, one spelling per field (`link_id`, `event_id`, `session_id`, `request_id`: docs/operations.md#logs).
 *
 * Logged errors carry stacks that name our TypeScript files and lines: the replacer maps them through the
 * bundle's source map, read only when an error is logged (functions/source-mapped-stack.ts).
 */
/** The `service` field of every log line and the `service` dimension of every metric. */
export const SERVICE_NAME = 'payment-links';

/**
 * Fields that hold a buyer's personal data wherever they appear (docs/security.md#personal-data): no code logs
 * them, and should a payment, a PSP's answer or an event reach a log line by mistake, these never do.
 */
export const PERSONAL_LOG_FIELDS: ReadonlySet<string> = new Set([
  'buyer',
  'client_reference_id',
  'prefilled_email',
  'email',
  'phone',
  'billing_address',
  'shipping_address',
  'customer_email',
  'shopperEmail',
  'shopperReference',
]);

export const logger = new Logger({
  serviceName: SERVICE_NAME,
  jsonReplacerFn: (key, value) => {
    if (PERSONAL_LOG_FIELDS.has(key)) return '[redacted]';
    return value instanceof Error ? mapErrorStack(value) : value;
  },
});

/**
 * For the entry points not built on middy (queue consumers, schedules): each line the invocation logs carries
 * the Lambda context (`function_name`, `function_request_id`, `cold_start`...), as `injectLambdaContext` does for
 * the HTTP chains (functions/http/).
 */
export function withLambdaContext<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  return (event: E, context: Context): Promise<R> => {
    logger.addContext(context);
    return handler(event, context);
  };
}

/**
 * An error to log without the personal data a request carried (buyer details and references,
 * docs/security.md#personal-data): its name, message and stack, and its causes' the same way, with each of
 * `values` replaced wherever it appears. A PSP's refusal may quote what it was sent ("Invalid email address: …"),
 * and some SDKs hang the whole request and answer on their errors (a `request.body`), which are left out.
 * `ownStack: false` leaves out the error's own stack (its causes keep theirs): for a failure our code
 * classified and handled, whose stack only names the line that classified it (docs/operations.md#logs).
 */
export function withoutPersonalData(
  error: unknown,
  values: readonly (string | undefined)[],
  options: { ownStack?: boolean } = {},
): unknown {
  if (!(error instanceof Error)) return error;
  const personal = values.filter((value): value is string => value !== undefined && value.length > 0);
  const scrub = (text: string) =>
    personal.reduce((scrubbed, value) => scrubbed.replaceAll(value, '[redacted]'), text);
  return {
    name: error.name,
    message: scrub(error.message),
    // Mapped to our sources here: the logger maps the stacks of errors, and this is a plain object.
    ...(error.stack && options.ownStack !== false ? { stack: scrub(sourceMappedStack(error.stack)) } : {}),
    ...(error.cause === undefined ? {} : { cause: withoutPersonalData(error.cause, personal) }),
  };
}
