import { randomInt } from 'node:crypto';
import diagnostics from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { PspCallTimeoutError } from '../../functions/adapters/psp/kit/calls.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { PSP_CALL_TIMEOUT_MS } from '../../functions/domain/call-budgets.ts';
import type { Psp } from '../../functions/ports/psp.ts';
import { PspConnections } from '../../functions/use-cases/psp-connections.ts';
import { currentFunction } from './permissions.ts';
import { seededRandom } from './seeded-random.ts';

/**
 * The local stack's fault mode (docs/operations.md#fault-injection): `FAULTS` names faults and the share of calls
 * each hits, injected where the functions meet what they call, so the handlers meet the errors AWS, a PSP or a
 * merchant's endpoint would give them and production code knows nothing of it:
 *
 * - `dynamodb:throttle` answers a DynamoDB call with the HTTP 400 `ProvisionedThroughputExceededException` the
 *   service sends, which the SDK parses (a throttling error) and retries with its own backoff, as on AWS.
 * - `dynamodb:timeout` waits, then fails the call with the SDK's own `TimeoutError` (what a client with a
 *   request timeout raises); the request never reached the table.
 * - `sqs:error` answers an SQS call with the HTTP 500 `InternalFailure` SQS sends; the SDK retries it.
 * - `psp:5xx` fails a PSP call (create, read or end a session; refund; charge a mandate) as an adapter does on a
 *   PSP's 5xx.
 * - `psp:timeout` lets a PSP call run out its budget (5 s), as a PSP that never answers; a mandate's charge is
 *   made first and its answer lost.
 * - `webhook:reset` resets the connection of a webhook POST once the request is sent (ECONNRESET): the endpoint
 *   may or may not have read it.
 *
 * Like AWS Fault Injection Service's Lambda actions, faults hit the functions' calls only, each call drawn on
 * its own with the given probability (FIS's `invocationPercentage`); calls of the local stack itself (its SQS
 * poller, tests arranging data, the CLIs) are untouched. Draws come from a seeded generator: the same seed gives
 * the same sequence of draws, printed so that a failing run can be repeated (which call meets which draw still
 * depends on timing when calls run at once). Source mode only: `--bundled` functions run in processes of their
 * own, where nothing is injected.
 */
export const FAULT_KINDS = {
  dynamodb: ['throttle', 'timeout'],
  sqs: ['error'],
  psp: ['5xx', 'timeout'],
  webhook: ['reset'],
} as const;

export type FaultTarget = keyof typeof FAULT_KINDS;
export type FaultKind<T extends FaultTarget = FaultTarget> = (typeof FAULT_KINDS)[T][number];

export interface FaultRule {
  target: FaultTarget;
  kind: FaultKind;
  probability: number;
}

export interface FaultPlan {
  rules: FaultRule[];
  seed: number;
}

/** How long an injected DynamoDB timeout waits before the SDK's `TimeoutError`. */
export const DYNAMODB_TIMEOUT_MS = 1_000;

/**
 * `FAULTS` (`target:kind:probability`, comma-separated) and `FAULTS_SEED` into a plan; undefined when `FAULTS`
 * is unset or empty. A malformed entry is an error naming it, never silently ignored.
 */
export function parseFaults(spec: string | undefined, seed?: string): FaultPlan | undefined {
  if (!spec?.trim()) return undefined;
  const rules = spec.split(',').map((entry): FaultRule => {
    const [target, kind, share, ...rest] = entry.trim().split(':');
    const kinds = FAULT_KINDS[target as FaultTarget] as readonly string[] | undefined;
    const probability = Number(share);
    if (!kinds || !kind || !kinds.includes(kind) || rest.length || !(probability >= 0 && probability <= 1)) {
      const known = Object.entries(FAULT_KINDS)
        .flatMap(([name, list]) => list.map((item) => `${name}:${item}`))
        .join(', ');
      throw new Error(
        `FAULTS: "${entry.trim()}" is not target:kind:probability with a probability from 0 to 1 (kinds: ${known}).`,
      );
    }
    return { target: target as FaultTarget, kind: kind as FaultKind, probability };
  });
  const parsedSeed = seed === undefined || seed === '' ? randomInt(2 ** 31) : Number(seed);
  if (!Number.isSafeInteger(parsedSeed)) throw new Error(`FAULTS_SEED: "${seed}" is not an integer.`);
  return { rules, seed: parsedSeed };
}

export class FaultInjector {
  readonly plan: FaultPlan;
  /** Faults injected so far, by `target:kind`. */
  readonly injected: Record<string, number> = {};
  private readonly random: () => number;

  constructor(plan: FaultPlan) {
    this.plan = plan;
    this.random = seededRandom(plan.seed);
  }

  /** The fault this call of `target` meets, if any: one draw per call, against the target's kinds in turn. */
  draw<T extends FaultTarget>(target: T): FaultKind<T> | undefined {
    const rules = this.plan.rules.filter((rule) => rule.target === target);
    if (!rules.length) return undefined;
    let at = this.random();
    for (const rule of rules) {
      if (at < rule.probability) {
        const name = `${rule.target}:${rule.kind}`;
        this.injected[name] = (this.injected[name] ?? 0) + 1;
        return rule.kind as FaultKind<T>;
      }
      at -= rule.probability;
    }
    return undefined;
  }

  total(): number {
    return Object.values(this.injected).reduce((sum, count) => sum + count, 0);
  }

  describe(): string {
    return this.plan.rules.map((rule) => `${rule.target}:${rule.kind}:${rule.probability}`).join(',');
  }
}

/** An HTTP answer as the SDK's deserializer reads it (the shape of `@smithy/protocol-http`'s HttpResponse). */
function awsJsonAnswer(statusCode: number, type: string, message: string, extraHeaders = {}) {
  return {
    response: {
      statusCode,
      reason: undefined,
      headers: {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': `FAULT${randomInt(1e9)}`,
        ...extraHeaders,
      },
      body: Buffer.from(JSON.stringify({ __type: type, message })),
    },
    output: undefined,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Middleware = (
  next: (args: unknown) => Promise<unknown>,
  context: unknown,
) => (args: unknown) => Promise<unknown>;
interface MiddlewareStack {
  addRelativeTo(middleware: Middleware, options: object): void;
  remove(name: string): boolean;
}

const MIDDLEWARE_NAME = 'localFaultInjection';
/** Inside the SDK's retry loop and just before the HTTP handler: each try is drawn on its own. */
const BELOW_DESERIALIZER = {
  relation: 'after',
  toMiddleware: 'deserializerMiddleware',
  name: MIDDLEWARE_NAME,
};

const PSP_CALLS = [
  'createSession',
  'retrieveSession',
  'expireSession',
  'refund',
  'retrieveRefund',
  'mandateOf',
  'chargeMandate',
  'retrieveCharge',
] as const;

/**
 * The calls whose injected timeout comes after the PSP acted: the charge is made and its answer lost, the case the
 * charge's idempotency key exists for (docs/subscriptions.md#charging-once).
 */
const ANSWER_LOST_AFTER_ACTING: ReadonlySet<string> = new Set(['chargeMandate']);

/**
 * Installs the faults of `injector` on the functions' DynamoDB and SQS clients, their PSP adapters and their
 * outbound webhook requests; returns the undo.
 */
export function installFaults(injector: FaultInjector): () => void {
  const dynamodbStack = documentClient().middlewareStack as unknown as MiddlewareStack;
  dynamodbStack.addRelativeTo(
    (next) => async (args) => {
      if (!currentFunction()) return next(args);
      const fault = injector.draw('dynamodb');
      if (fault === 'throttle') {
        return awsJsonAnswer(
          400,
          'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
        );
      }
      if (fault === 'timeout') {
        await sleep(DYNAMODB_TIMEOUT_MS);
        // What @smithy/node-http-handler raises when a request outlasts its requestTimeout.
        throw Object.assign(
          new Error(
            `@smithy/node-http-handler - [ERROR] a request has exceeded the configured ${DYNAMODB_TIMEOUT_MS} ms requestTimeout.`,
          ),
          { name: 'TimeoutError', code: 'ETIMEDOUT' },
        );
      }
      return next(args);
    },
    BELOW_DESERIALIZER,
  );

  const sqsStack = sqsClient().middlewareStack as unknown as MiddlewareStack;
  sqsStack.addRelativeTo(
    (next) => async (args) => {
      if (!currentFunction() || injector.draw('sqs') !== 'error') return next(args);
      return awsJsonAnswer(
        500,
        'com.amazon.coral.service#InternalFailure',
        'The request processing has failed because of an unknown error, exception or failure.',
        { 'x-amzn-query-error': 'InternalFailure;Receiver' },
      );
    },
    BELOW_DESERIALIZER,
  );

  const adapter = PspConnections.prototype.adapter;
  PspConnections.prototype.adapter = async function (this: PspConnections, connection) {
    return faultyPsp(await adapter.call(this, connection), injector);
  };

  const onRequest = (message: unknown) => {
    const request = (message as { request: ClientRequest }).request;
    if (!request.getHeader('webhook-id') || injector.draw('webhook') !== 'reset') return;
    request.once('finish', () =>
      setImmediate(() =>
        request.destroy(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' })),
      ),
    );
  };
  diagnostics.subscribe('http.client.request.start', onRequest);

  return () => {
    dynamodbStack.remove(MIDDLEWARE_NAME);
    sqsStack.remove(MIDDLEWARE_NAME);
    PspConnections.prototype.adapter = adapter;
    diagnostics.unsubscribe('http.client.request.start', onRequest);
  };
}

/** The adapter with its calls to the PSP drawn for faults; what it checks locally (signatures) is untouched. */
function faultyPsp(psp: Psp, injector: FaultInjector): Psp {
  const faulty = Object.create(psp) as Psp;
  for (const name of PSP_CALLS) {
    // A capability the PSP lacks stays absent, so that its guard still says so.
    const call = (psp as unknown as Record<string, unknown>)[name] as
      | ((...args: unknown[]) => Promise<unknown>)
      | undefined;
    if (!call) continue;
    (faulty as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const fault = injector.draw('psp');
      if (fault === '5xx') {
        throw Object.assign(new Error(`${psp.provider} answered HTTP 503 (injected fault)`), {
          statusCode: 503,
        });
      }
      if (fault === 'timeout') {
        if (ANSWER_LOST_AFTER_ACTING.has(name)) await call.apply(psp, args);
        await sleep(PSP_CALL_TIMEOUT_MS);
        throw new PspCallTimeoutError(psp.provider, PSP_CALL_TIMEOUT_MS);
      }
      return call.apply(psp, args);
    };
  }
  return faulty;
}
