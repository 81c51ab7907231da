import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DESIGN_PEAK } from '../functions/adapters/dynamodb/table-schema.ts';
import { DEFAULT_RATE_LIMIT } from '../functions/ports/rate-limiter.ts';
import type { ReservedConcurrency } from './constructs/service-functions.ts';
import { PaymentLinksStack } from './payment-links-stack.ts';
import { EVENT_SOURCE_CONCURRENCY, type FunctionDefinition, functions, type HandlerName } from './routes.ts';

/**
 * The CDK app, shared by `bin/app.ts` and the infra tests. Context: `stage` (default `dev`; any other stage
 * retains and protects data), `checkoutBase` (a custom domain for checkout pages), `throttleRateLimit` and
 * `throttleBurstLimit` (API Gateway throttling of each merchant route), `publicThrottleRateLimit` and
 * `publicThrottleBurstLimit` (of each public route), `edgeRateLimit` or `edgeWebAclArn` (opt-in CloudFront
 * and AWS WAF per-client limits, docs/security.md), `rateLimitRequests` and `rateLimitWindowSeconds` (the
 * per-(account, mode) limit), `webhookConcurrency` (concurrent webhook-delivery invocations at most, 2..1000;
 * default in lib/routes.ts), `<handler in camelCase>ReservedConcurrency` (e.g.
 * `checkoutPageReservedConcurrency`: the reserved concurrency of a function reachable without a key; defaults
 * in lib/routes.ts) or `reservedConcurrency=off` (none), `alarmTopicArn` and `alarmEmail` (where the alarms
 * notify), `indexMigration=<step>` (a deploy of a deployed table's move to today's indexes,
 * docs/operations.md#index-migrations; `legacyOutboxIndex=true` is step 1), `peakLinksPerSecond` and
 * `peakLinksPerSecondOfOneMerchant` (the planned peak, checked against the key design). cdk-nag's AwsSolutions
 * rules run on every synth; a finding that is not acknowledged in code with its reason fails the synth.
 */
export function createApp(props: AppProps = {}): { app: App; stack: PaymentLinksStack } {
  const app = new App(props);
  checkPeakContext(app);
  const stage = String(app.node.tryGetContext('stage') ?? 'dev');
  const stack = new PaymentLinksStack(app, `PaymentLinks-${stage}`, {
    stage,
    checkoutBase: app.node.tryGetContext('checkoutBase') as string | undefined,
    ...edgeContext(app),
    throttle: {
      rateLimit: numberContext(app, 'throttleRateLimit', 100),
      burstLimit: numberContext(app, 'throttleBurstLimit', 200),
    },
    publicThrottle: {
      rateLimit: numberContext(app, 'publicThrottleRateLimit', 1000),
      burstLimit: numberContext(app, 'publicThrottleBurstLimit', 2000),
    },
    rateLimit: {
      requests: numberContext(app, 'rateLimitRequests', DEFAULT_RATE_LIMIT.requests),
      windowSeconds: numberContext(app, 'rateLimitWindowSeconds', DEFAULT_RATE_LIMIT.windowSeconds),
    },
    webhookConcurrency: webhookConcurrencyContext(app),
    indexMigrationStep: indexMigrationContext(app),
    reservedConcurrency: reservedConcurrencyContext(app),
    alarmNotifications: {
      topicArn: stringContext(app, 'alarmTopicArn', /^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w-]{1,256}$/),
      email: stringContext(app, 'alarmEmail', /^[^\s@]+@[^\s@]+\.[^\s@]+$/),
    },
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}

/** `indexMigration=<step>`, or the outbox's first deploy by its old name (`legacyOutboxIndex=true`: step 1). */
function indexMigrationContext(app: App): number | undefined {
  if (String(app.node.tryGetContext('legacyOutboxIndex') ?? 'false') === 'true') return 1;
  return app.node.tryGetContext('indexMigration') === undefined
    ? undefined
    : numberContext(app, 'indexMigration', 0);
}

/** A positive integer from CDK context (`-c name=123` arrives as a string), or the default. */
/**
 * `peakLinksPerSecond` and `peakLinksPerSecondOfOneMerchant`: the rates the deployment is planned for. The shard
 * counts of the work lists and of each merchant's listings and feed are built into every function from
 * `DESIGN_PEAK` (functions/adapters/dynamodb/table-schema.ts), so a plan above it fails the synth instead of
 * throttling in production (docs/scaling.md#configured-peak).
 */
function checkPeakContext(app: App): void {
  const contexts = {
    peakLinksPerSecond: DESIGN_PEAK.linksPerSecond,
    peakLinksPerSecondOfOneMerchant: DESIGN_PEAK.linksPerSecondOfOneMerchant,
  };
  for (const [name, designed] of Object.entries(contexts)) {
    const rate = numberContext(app, name, designed);
    if (rate > designed) {
      throw new Error(
        `Context ${name} ${rate} is above the key design's ${designed}: raise DESIGN_PEAK in functions/adapters/dynamodb/table-schema.ts and deploy (docs/scaling.md#configured-peak).`,
      );
    }
  }
}

function numberContext(app: App, name: string, fallback: number): number {
  const raw = app.node.tryGetContext(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`Context ${name} must be a positive integer: ${raw}`);
  return value;
}

/** CloudFront + WAF in front of the API when `edgeRateLimit` (a WebACL made here) or `edgeWebAclArn` is given. */
function edgeContext(app: App): { edge?: { rateLimit?: number; webAclArn?: string } } {
  const webAclArn = app.node.tryGetContext('edgeWebAclArn') as string | undefined;
  if (webAclArn) return { edge: { webAclArn } };
  if (app.node.tryGetContext('edgeRateLimit') === undefined) return {};
  return { edge: { rateLimit: numberContext(app, 'edgeRateLimit', 0) } };
}

/** The `webhookConcurrency` context, within what an SQS event source accepts; undefined keeps the default. */
function webhookConcurrencyContext(app: App): number | undefined {
  if (app.node.tryGetContext('webhookConcurrency') === undefined) return undefined;
  const value = numberContext(app, 'webhookConcurrency', 0);
  const { min, max } = EVENT_SOURCE_CONCURRENCY;
  if (value < min || value > max)
    throw new Error(`Context webhookConcurrency must be ${min}..${max}: ${value}`);
  return value;
}

/**
 * `reservedConcurrency=off` drops every reservation; otherwise `<handler in camelCase>ReservedConcurrency`
 * overrides the route table's figure of that function (only functions that have one take it).
 */
function reservedConcurrencyContext(app: App): ReservedConcurrency {
  const all = app.node.tryGetContext('reservedConcurrency');
  if (all === 'off' || all === false) return 'off';
  if (all !== undefined) throw new Error(`Context reservedConcurrency may only be off: ${all}`);
  const overrides: Partial<Record<HandlerName, number>> = {};
  for (const handler of Object.keys(functions) as HandlerName[]) {
    if ((functions[handler] as FunctionDefinition).reservedConcurrency === undefined) continue;
    const name = `${handler.replace(/-(\w)/g, (_match, letter: string) => letter.toUpperCase())}ReservedConcurrency`;
    if (app.node.tryGetContext(name) !== undefined) overrides[handler] = numberContext(app, name, 0);
  }
  return overrides;
}

/** A string from CDK context that must match `pattern`, or undefined when not given. */
function stringContext(app: App, name: string, pattern: RegExp): string | undefined {
  const raw = app.node.tryGetContext(name);
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !pattern.test(raw)) throw new Error(`Context ${name} is not valid: ${raw}`);
  return raw;
}
