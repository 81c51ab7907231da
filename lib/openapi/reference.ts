import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  MAX_KEYED_COLUMNS,
  MAX_PICKED_COLUMNS,
  PAYMENT_COLUMNS,
  REFUND_COLUMNS,
} from '../../functions/domain/book-exports.ts';
import { MAX_EXPORT_DAYS } from '../../functions/domain/books.ts';
import { EVENT_TYPES } from '../../functions/domain/link-events.ts';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from '../../functions/domain/personal-data.ts';
import { MAX_REFUNDS_PER_LINK } from '../../functions/domain/refund.ts';
import { ENDPOINT_EVENT_TYPES, MAX_WEBHOOK_ENDPOINTS } from '../../functions/domain/webhook-endpoint.ts';
import { MAX_CSV_BYTES } from '../../functions/http/api/books-response.ts';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER } from '../../functions/http/api/idempotency.ts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../../functions/http/api/list-query.ts';
import { MAX_BODY_BYTES } from '../../functions/http/api/request-body.ts';
import { ERROR_CODES } from '../../functions/http/api/response-schemas.ts';
import { DEFAULT_RATE_LIMIT } from '../../functions/ports/rate-limiter.ts';
import { MAX_SUMMARY_PAGES, SUMMARY_PAGE_SIZE } from '../../functions/use-cases/book-exports.ts';
import {
  IDEMPOTENCY_KEY_TTL_HOURS,
  IDEMPOTENCY_LOCK_SECONDS,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../../functions/use-cases/idempotency.ts';
import { PAYOUT_READ_INTERVAL_MS, PAYOUTS_PER_READ } from '../../functions/use-cases/settlements.ts';
import { errorsByStatus, openApiDocument } from './document.ts';
import { type OperationSpec, operations } from './operations.ts';

/**
 * Renders docs/api.md: the prose of api-reference.template.md with its `{{name}}` slots filled, the tables
 * from the OpenAPI document (`npm run openapi` writes both; a test fails when either is stale), so the
 * reference lists exactly the operations, fields, limits and error codes the code enforces.
 */
export function renderApiReference(): string {
  const template = readFileSync(join(import.meta.dirname, 'api-reference.template.md'), 'utf8');
  return fillTemplate(template, { ...tables(), ...limits() });
}

/** The numbers and names the prose states, from the constants the code enforces. */
const limits = () => ({
  max_body_kib: String(MAX_BODY_BYTES / 1024),
  idempotency_key_header: IDEMPOTENCY_KEY_HEADER,
  replayed_header: REPLAYED_HEADER,
  max_idempotency_key_length: String(MAX_IDEMPOTENCY_KEY_LENGTH),
  idempotency_key_ttl_hours: String(IDEMPOTENCY_KEY_TTL_HOURS),
  idempotency_lock_seconds: String(IDEMPOTENCY_LOCK_SECONDS),
  default_list_limit: String(DEFAULT_LIST_LIMIT),
  max_list_limit: String(MAX_LIST_LIMIT),
  rate_limit_requests: String(DEFAULT_RATE_LIMIT.requests),
  rate_limit_window_seconds: String(DEFAULT_RATE_LIMIT.windowSeconds),
  event_types: EVENT_TYPES.map((type) => `\`${type}\``).join(', '),
  endpoint_event_types: ENDPOINT_EVENT_TYPES.map((type) => `\`${type}\``).join(', '),
  max_webhook_endpoints: String(MAX_WEBHOOK_ENDPOINTS),
  max_refunds_per_link: String(MAX_REFUNDS_PER_LINK),
  max_export_days: String(MAX_EXPORT_DAYS),
  payment_columns: PAYMENT_COLUMNS.join(','),
  refund_columns: REFUND_COLUMNS.join(','),
  max_csv_mb: String(MAX_CSV_BYTES / 1_000_000),
  max_keyed_columns: String(MAX_KEYED_COLUMNS),
  max_picked_columns: String(MAX_PICKED_COLUMNS),
  summary_page_size: SUMMARY_PAGE_SIZE.toLocaleString('en'),
  max_summary_payments: (SUMMARY_PAGE_SIZE * MAX_SUMMARY_PAGES).toLocaleString('en'),
  payout_read_minutes: String(PAYOUT_READ_INTERVAL_MS / 60_000),
  payouts_per_read: String(PAYOUTS_PER_READ),
  min_retention_days: String(MIN_RETENTION_DAYS),
  max_retention_days: String(MAX_RETENTION_DAYS),
});

function tables() {
  const document = openApiDocument() as unknown as Document;
  return {
    operations: operations.map((spec) => operationSection(spec, document)).join('\n\n'),
    resources: Object.entries(document.components.schemas)
      .map(([name, schema]) => [`### ${name}`, '', schema.title ?? '', '', ...fieldTable(schema)].join('\n'))
      .join('\n\n'),
    error_codes: errorCodeTable().join('\n'),
  };
}

/** Every slot must be filled and every value used, so a renamed slot fails the generator instead of the reader. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const unused = new Set(Object.keys(values));
  const filled = template.replaceAll(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`api-reference.template.md: no value for {{${name}}}`);
    unused.delete(name);
    return value;
  });
  if (unused.size) throw new Error(`api-reference.template.md lacks {{${[...unused].join('}}, {{')}}}`);
  return filled;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}
interface Document {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
      }
    >
  >;
  components: { schemas: Record<string, Schema & { title?: string }> };
}

type Schema = {
  type?: string | string[];
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema | boolean;
  propertyNames?: Schema;
  $ref?: string;
  description?: string;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
};

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function typeOf(schema: Schema): string {
  if (schema.$ref) return schema.$ref.split('/').pop() ?? 'object';
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${String(value)}\``).join(' | ');
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  if (schema.type === 'array' && schema.items) return `array of ${typeOf(schema.items)}`;
  if (
    schema.type === 'object' &&
    schema.additionalProperties &&
    typeof schema.additionalProperties === 'object'
  )
    return `object of ${typeOf(schema.additionalProperties)}`;
  return schema.type ?? 'any';
}

/** The constraints of a field, of each of its variants (`anyOf`) in turn, as the notes column states them. */
function constraintsOf(schema: Schema): string[] {
  return [schema, ...(schema.anyOf ?? [])].flatMap(variantConstraints);
}

function variantConstraints(variant: Schema): string[] {
  const parts = [...valueConstraints(variant), ...recordConstraints(variant)];
  if (variant.default !== undefined) parts.push(`default ${JSON.stringify(variant.default)}`);
  return parts;
}

/** A string's or a number's own constraints: its format, length, bounds and pattern. */
function valueConstraints(variant: Schema): string[] {
  const parts: string[] = [];
  if (variant.format) parts.push(`format ${variant.format}`);
  if (variant.minLength !== undefined && variant.maxLength !== undefined)
    parts.push(`${variant.minLength}–${variant.maxLength} characters`);
  else if (variant.maxLength !== undefined) parts.push(`at most ${variant.maxLength} characters`);
  if (variant.minimum !== undefined) parts.push(`≥ ${variant.minimum}`);
  if (variant.maximum !== undefined) parts.push(`≤ ${variant.maximum}`);
  if (variant.pattern && variant.format !== 'date-time') parts.push(`pattern \`${variant.pattern}\``);
  return parts;
}

/** A record's constraints on its keys and on its values. */
function recordConstraints(variant: Schema): string[] {
  const parts: string[] = [];
  if (variant.propertyNames?.maxLength !== undefined)
    parts.push(`keys ${variant.propertyNames.minLength ?? 0}–${variant.propertyNames.maxLength} characters`);
  const values = typeof variant.additionalProperties === 'object' ? variant.additionalProperties : undefined;
  if (values?.maxLength !== undefined) parts.push(`values at most ${values.maxLength} characters`);
  return parts;
}

const describe = (description: string | undefined, constraints: string[]) =>
  [description, constraints.length ? `(${constraints.join('; ')})` : ''].filter(Boolean).join(' ');

function fieldRows(schema: Schema, prefix = ''): string[] {
  const rows: string[] = [];
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const required = schema.required?.includes(name) ? 'yes' : 'no';
    const notes = describe(field.description, constraintsOf(field));
    rows.push(`| \`${prefix}${name}\` | ${cell(typeOf(field))} | ${required} | ${cell(notes)} |`);
    if (field.type === 'object' && field.properties) rows.push(...fieldRows(field, `${prefix}${name}.`));
  }
  return rows;
}

const fieldTable = (schema: Schema) => [
  '| field | type | required | notes |',
  '| ----- | ---- | -------- | ----- |',
  ...fieldRows(schema),
];

function operationSection(spec: OperationSpec, document: Document): string {
  const operation = document.paths[spec.path]?.[spec.method];
  const lines = [
    `### ${spec.summary}`,
    '',
    `\`${spec.method.toUpperCase()} ${spec.path}\``,
    '',
    spec.description,
  ];
  if (!spec.auth) lines.push('', 'No API key needed.');
  if (operation?.parameters?.length) lines.push('', ...parameterTable(operation.parameters));
  const body = operation?.requestBody;
  const bodySchema = body && Object.values(body.content)[0]?.schema;
  if (bodySchema) {
    lines.push('', body.required ? 'Request body:' : 'Request body (optional):', '');
    if (Object.keys(bodySchema.properties ?? {}).length) lines.push(...fieldTable(bodySchema));
    else lines.push('None needed; `{}` is accepted.');
  }
  const component = componentName(spec.success.schema);
  const success = component ? `[${component}](#${component.toLowerCase()})` : 'JSON';
  lines.push('', `Response: \`${spec.success.status}\` ${success}. ${spec.success.description}`, '');
  lines.push('| status | error codes |', '| ------ | ----------- |');
  for (const [status, codes] of errorsByStatus(spec)) {
    lines.push(`| ${status} | ${codes.map((code) => `[\`${code}\`](#${code})`).join(', ')} |`);
  }
  return lines.join('\n');
}

const componentName = (schema: OperationSpec['success']['schema']) =>
  schema instanceof z.ZodType ? (z.globalRegistry.get(schema)?.id as string | undefined) : undefined;

const parameterTable = (parameters: Parameter[]) => [
  '| parameter | in | required | type | notes |',
  '| --------- | -- | -------- | ---- | ----- |',
  ...parameters.map((parameter) => {
    // A parameter of several forms (a date or a date-time) keeps its description on its schema.
    const notes = describe(
      parameter.description ?? parameter.schema.description,
      constraintsOf(parameter.schema),
    );
    return `| \`${parameter.name}\` | ${parameter.in} | ${parameter.required ? 'yes' : 'no'} | ${cell(typeOf(parameter.schema))} | ${cell(notes)} |`;
  }),
];

const errorCodeTable = () => [
  '| code | status | type | meaning |',
  '| ---- | ------ | ---- | ------- |',
  ...Object.entries(ERROR_CODES).map(
    ([code, { status, meaning }]) =>
      `| <a id="${code}"></a>\`${code}\` | ${status} | \`/problems/${code}\` | ${cell(meaning)} |`,
  ),
];
