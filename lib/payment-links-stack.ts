import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { AlarmNotifications, type AlarmNotificationsProps } from './constructs/alarm-notifications.ts';
import { CheckoutSecrets } from './constructs/checkout-secrets.ts';
import { ConsoleSignIn } from './constructs/console-sign-in.ts';
import { EdgeProtection, type EdgeProtectionProps } from './constructs/edge-protection.ts';
import { LinksTable } from './constructs/links-table.ts';
import { MerchantApi } from './constructs/merchant-api.ts';
import { ServiceAlarms } from './constructs/service-alarms.ts';
import { metricsNamespace, ServiceDashboard } from './constructs/service-dashboard.ts';
import { type ReservedConcurrency, ServiceFunctions, toConstructId } from './constructs/service-functions.ts';
import { SigningKey } from './constructs/signing-key.ts';
import { WebhookDelivery } from './constructs/webhook-delivery.ts';
import { WebhookEventQueues } from './constructs/webhook-event-queues.ts';
import { eventsQueueVisibilitySeconds, schedules } from './routes.ts';

export interface PaymentLinksStackProps extends StackProps {
  /** `dev` stages may be destroyed with their data; any other stage retains and protects it. */
  stage: string;
  /** Public base of checkout pages (e.g. a custom domain); defaults to `<api url>/checkout`. */
  checkoutBase?: string;
  /**
   * Opt-in CloudFront + AWS WAF per-client limits in front of the API (CDK context `edgeRateLimit` or
   * `edgeWebAclArn`); the API and checkout pages are then published under the distribution's address.
   */
  edge?: Omit<EdgeProtectionProps, 'api'>;
  /** API Gateway throttling of each merchant route (requests per second; burst). */
  throttle?: { rateLimit: number; burstLimit: number };
  /** API Gateway throttling of each public route: checkout pages, the sandbox, PSP notifications. */
  publicThrottle?: { rateLimit: number; burstLimit: number };
  /** Per-(account, mode) request limit enforced by the functions (defaults in functions/config.ts). */
  rateLimit?: { requests: number; windowSeconds: number };
  /** Where the alarms notify (CDK context `alarmTopicArn`, `alarmEmail`); nowhere when empty. */
  alarmNotifications?: AlarmNotificationsProps;
  /** Concurrent webhook-delivery invocations at most (default: the route table's). */
  webhookConcurrency?: number;
  /** Reserved concurrency of the keyless functions: overrides of the route table's, or `off` (none). */
  reservedConcurrency?: ReservedConcurrency;
  /** The step of the index migration this deploy makes (docs/operations.md#index-migrations). */
  indexMigrationStep?: number;
}

/**
 * The whole service on AWS; the local stack (lib/local/) runs the same handlers from the same tables. This root
 * stack holds what keeps data or a name others rely on (table, queues, keys, secrets, user pool, API, stage and
 * routes, schedules, alarms, dashboard); the functions deploy with it in a nested stack per surface
 * (docs/operations.md#stack-size).
 */
export class PaymentLinksStack extends Stack {
  readonly api: MerchantApi;
  readonly table: LinksTable;
  readonly events: WebhookEventQueues;
  readonly functions: ServiceFunctions;
  readonly consoleSignIn: ConsoleSignIn;

  constructor(scope: Construct, id: string, props: PaymentLinksStackProps) {
    super(scope, id, props);
    const protectData = props.stage !== 'dev';
    this.table = new LinksTable(this, 'Links', { protectData, indexMigrationStep: props.indexMigrationStep });
    // The construct id predates the class name; changing it would replace the deployed queues.
    this.events = new WebhookEventQueues(this, 'EventQueue', {
      visibilityTimeout: Duration.seconds(eventsQueueVisibilitySeconds()),
      protectData,
    });
    this.api = new MerchantApi(this, 'Api', {
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      publicThrottle: props.publicThrottle ?? { rateLimit: 1000, burstLimit: 2000 },
      protectData,
    });
    const edge = props.edge && new EdgeProtection(this, 'Edge', { api: this.api.api, ...props.edge });
    const publicBase = edge?.url ?? this.api.baseUrl;
    const checkoutBase = props.checkoutBase ?? `${publicBase}/checkout`;
    const checkoutSecrets = new CheckoutSecrets(this, 'CheckoutSecrets', { stage: props.stage, protectData });
    const signingKey = new SigningKey(this, 'SigningKey', { protectData });
    // The functions, in a nested stack per surface (lib/surfaces.ts); all else stays here (docs/operations.md#stack-size).
    this.functions = new ServiceFunctions(this, 'Surfaces', {
      table: this.table.table,
      tableIndexes: this.table.indexNames,
      eventQueue: this.events.queue,
      deadLetterQueue: this.events.deadLetterQueue,
      environment: {
        TABLE_NAME: this.table.table.tableName,
        BASE_URL: publicBase,
        CHECKOUT_BASE: checkoutBase,
        EVENTS_QUEUE_URL: this.events.queue.queueUrl,
        EVENTS_DEAD_LETTER_QUEUE_URL: this.events.deadLetterQueue.queueUrl,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace(this),
        ...this.table.environment,
        ...checkoutSecrets.environment,
        ...signingKey.environment,
        ...(props.rateLimit && {
          RATE_LIMIT_REQUESTS: String(props.rateLimit.requests),
          RATE_LIMIT_WINDOW_SECONDS: String(props.rateLimit.windowSeconds),
        }),
      },
      clientAddressEnvironment: edge?.clientAddressEnvironment,
      protectData,
      secrets: checkoutSecrets,
      signingKey,
      reservedConcurrency: props.reservedConcurrency,
    });
    this.api.addRoutes(this.functions);
    this.consoleSignIn = new ConsoleSignIn(this, 'ConsoleSignIn', {
      publicBase,
      stage: props.stage,
      protectData,
    });
    // Only the console's function knows the user pool.
    const consoleFunction = this.functions.get('console');
    for (const [name, value] of Object.entries(this.consoleSignIn.environment)) {
      consoleFunction.addEnvironment(name, value);
    }

    this.scheduleFunctions();

    new WebhookDelivery(this, 'WebhookDelivery', {
      events: this.events,
      functions: this.functions,
      maxConcurrency: props.webhookConcurrency,
    });
    new ServiceAlarms(this, 'Alarms', { functions: this.functions, api: this.api.api });
    const dashboard = new ServiceDashboard(this, 'Dashboard');
    dashboard.addAlarmStatus(this.node.findAll().filter((node): node is Alarm => node instanceof Alarm));
    new AlarmNotifications(this, 'AlarmNotifications', props.alarmNotifications ?? {});

    this.addOutputs({
      publicBase,
      checkoutBase,
      pspSecretPrefix: checkoutSecrets.pspSecretPrefix,
      signingKey,
    });
  }

  /** Runs each scheduled function of the route table (lib/routes.ts) at its rate. */
  private scheduleFunctions(): void {
    for (const schedule of schedules) {
      new Rule(this, `${toConstructId(schedule.handler)}Schedule`, {
        schedule: Schedule.rate(Duration.minutes(schedule.everyMinutes)),
        targets: [new LambdaTarget(this.functions.get(schedule.handler), { retryAttempts: 2 })],
      });
    }
  }

  /** The stack's outputs: where the API and its checkout pages are, and what `npm run keys` needs. */
  private addOutputs(outputs: {
    publicBase: string;
    checkoutBase: string;
    pspSecretPrefix: string;
    signingKey: SigningKey;
  }): void {
    new CfnOutput(this, 'BaseUrl', {
      value: outputs.publicBase,
      description: 'Base URL of the merchant API',
    });
    new CfnOutput(this, 'CheckoutBase', {
      value: outputs.checkoutBase,
      description: 'Base of every checkout_url',
    });
    new CfnOutput(this, 'PspSecretPrefix', {
      value: outputs.pspSecretPrefix,
      description:
        'PSP credentials go in <prefix>connections/<connection id> (docs/orchestration.md#connections)',
    });
    new CfnOutput(this, 'SigningKeyArn', {
      value: outputs.signingKey.key.keyArn,
      description: 'For npm run keys --signing-key: the KMS key webhook signing secrets are sealed with',
    });
    new CfnOutput(this, 'ConsoleUserPoolId', {
      value: this.consoleSignIn.userPool.userPoolId,
      description: 'For npm run console -- invite: the user pool of the console (docs/console.md)',
    });
    new CfnOutput(this, 'TableName', {
      value: this.table.table.tableName,
      description: 'For npm run keys --table',
    });
  }
}
