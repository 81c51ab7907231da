import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../../functions/domain/errors.ts';
import { type ErrorCode, PROBLEM_TYPES, problemOf } from '../../functions/http/problem-types.ts';

const domain = join(import.meta.dirname, '..', '..', 'functions', 'domain');
const errorClasses = Object.values(errors).filter(
  (value): value is typeof value & { code: string } =>
    typeof value === 'function' && value.prototype instanceof errors.ServiceError,
);

describe('the table of problem types (functions/http/problem-types.ts)', () => {
  it('has a row for the code of every domain error class, and no row that no class carries', () => {
    // Prepare
    const codes = new Set(errorClasses.map((type) => type.code));
    // Act
    const missing = errorClasses.filter((type) => !Object.hasOwn(PROBLEM_TYPES, type.code));
    // Assess
    expect(errorClasses.length).toBeGreaterThanOrEqual(17);
    expect(missing.map((type) => type.name)).toEqual([]);
    expect(Object.keys(PROBLEM_TYPES).filter((code) => !codes.has(code))).toEqual([]);
  });

  it('is closed: the codes are literal types, so the compiler asks for the row of a new one', () => {
    // A class whose `code` were typed `string` would open the table: `Record<string, …>` asks for no row.
    const closed: string extends ErrorCode ? false : true = true;
    expect(closed).toBe(true);
  });

  it.each([
    [new errors.InvalidJsonError(), 400, {}],
    [new errors.InvalidNotificationError('forged'), 400, {}],
    [new errors.UnauthorizedError(), 401, { 'WWW-Authenticate': 'Bearer' }],
    [new errors.NotFoundError(), 404, {}],
    [new errors.MethodNotAllowedError(['GET', 'POST']), 405, { Allow: 'GET, POST' }],
    [new errors.IdempotencyInProgressError(), 409, { 'Retry-After': '1' }],
    [new errors.InvalidStateError('paid'), 409, {}],
    [
      new errors.ConnectionInUseError('pc_1', { payments: [{ link_id: 'pl_1', id: 'pay_1' }], refunds: [] }),
      409,
      {},
    ],
    [new errors.PayloadTooLargeError(32768), 413, {}],
    [new errors.UnsupportedMediaTypeError(), 415, {}],
    [new errors.IdempotencyKeyReusedError(), 422, {}],
    [new errors.ValidationError([{ pointer: '/amount', detail: 'Required.' }]), 422, {}],
    [new errors.RateLimitedError(17), 429, { 'Retry-After': '17' }],
    [new errors.ConcurrentModificationError('lost a race'), 500, {}],
    [new errors.PspUnavailableError(), 502, { 'Retry-After': '1' }],
    [new errors.PspNotConfiguredError(), 503, {}],
    [new errors.PspSessionNotEndedError(), 503, { 'Retry-After': '5' }],
    [new errors.TemporarilyUnavailableError(), 503, { 'Retry-After': '1' }],
  ])('answers %s with its status and headers', (error, status, headers) => {
    // Act
    const problem = problemOf(error);
    // Assess
    expect([problem.status, problem.code, problem.type]).toEqual([
      status,
      error.code,
      `/problems/${error.code}`,
    ]);
    expect(problem.headers).toEqual(headers);
  });

  it('shows the message of a fact as its detail, the field errors as `errors`, and a Retry-After in words', () => {
    // Act
    const invalid = problemOf(new errors.ValidationError([{ pointer: '/amount', detail: 'Required.' }]));
    const temporary = problemOf(new errors.TemporarilyUnavailableError());
    const notEnded = problemOf(new errors.PspSessionNotEndedError());
    // Assess
    expect([invalid.title, invalid.detail, invalid.members]).toEqual([
      'Validation failed',
      'The request has 1 invalid field.',
      { errors: [{ pointer: '/amount', detail: 'Required.' }] },
    ]);
    expect(temporary.detail).toBe(
      'The request could not be completed just now. Retry after Retry-After seconds.',
    );
    expect(notEnded.detail).toBe(
      'The payment provider could not end the checkout session of this link, so nothing was changed. Retry after `Retry-After` seconds.',
    );
  });

  it('answers an internal fact, and anything that is not a ServiceError, as internal_error without its message', () => {
    // Act
    const answers = [
      new errors.ConcurrentModificationError('lost a race on pl_1'),
      new TypeError('x is undefined'),
    ]
      .map(problemOf)
      .map(({ status, code, title, detail }) => ({ status, code, title, detail }));
    // Assess
    const internal = {
      status: 500,
      code: 'internal_error',
      title: 'Internal error',
      detail: 'Something went wrong on our side. Retry later; the request id helps support.',
    };
    expect(answers).toEqual([internal, internal]);
  });
});

describe('the domain (functions/domain/)', () => {
  const sources = readdirSync(domain, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [file, readFileSync(join(domain, file), 'utf8')] as const);

  // webhook.ts and endpoint-health.ts read the answers of merchants' endpoints (their status, their
  // `Retry-After`): that is the domain of delivery, not how our own errors answer.
  it.each([
    ['declares no HTTP status', /\bstatus(?:Code)?\s*[:=]\s*[1-5]\d\d\b|\bstatusCode\b/, 'all'],
    ['names no header or format of our problem answers', /WWW-Authenticate|problem\+json|\bexpose\b/i, 'all'],
    ['imports nothing of the HTTP layer', /from '(?:\.\.\/http\/|aws-lambda|@middy\/)/, 'all'],
    ['leaves Retry-After and statuses to the table in its errors', /Retry-After|\bstatus\b/i, 'errors.ts'],
  ])('%s (errors are facts; their HTTP answer is functions/http/problem-types.ts)', (_, pattern, scope) => {
    // Prepare
    const scanned = sources.filter(([file]) => scope === 'all' || file === scope);
    // Act
    const offending = scanned.filter(([, text]) => pattern.test(text)).map(([file]) => file);
    // Assess
    expect(scanned.length).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });

  it('gives its errors no HTTP fields, on the classes or on their instances', () => {
    // Prepare
    const httpFields = ['status', 'statusCode', 'expose', 'title', 'headers', 'retryAfterSeconds'];
    const instances = [
      new errors.RateLimitedError(1),
      new errors.ConcurrentModificationError('x'),
      new errors.ValidationError([]),
      new errors.PspSessionNotEndedError(),
      new errors.MethodNotAllowedError(['GET']),
    ];
    // Act
    const found = [...errorClasses, ...instances].flatMap((value) =>
      httpFields.filter((field) => field in value).map((field) => `${value.constructor.name}.${field}`),
    );
    // Assess
    expect(found).toEqual([]);
  });
});
