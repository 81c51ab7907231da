import { Duration, NestedStack, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type FunctionDefinition,
  functions,
  type HandlerName,
  isPublicFacing,
  PUBLIC_DENIED_KEY_PATTERNS,
  tableActionsOf,
  timeoutSecondsOf,
} from '../routes.ts';
import { SURFACES, type Surface, surfaceOf } from '../surfaces.ts';
import type { CheckoutSecrets } from './checkout-secrets.ts';
import { ServiceFunction } from './service-function.ts';
import type { SigningKey } from './signing-key.ts';

export interface ServiceFunctionsProps {
  table: ITableV2;
  /** The names of the table's indexes (each granted by name). */
  tableIndexes: readonly string[];
  eventQueue: IQueue;
  /** The event queue's dead-letter queue, for functions that `sendsDeadLetters`. */
  deadLetterQueue?: IQueue;
  /** Configuration every function receives (functions/config.ts reads it). */
  environment: Record<string, string>;
  /**
   * What the functions whose route-table entry says `clientAddress` receive beside it: the CloudFront front's
   * origin secret, when the front is deployed (lib/constructs/edge-protection.ts).
   */
  clientAddressEnvironment?: Record<string, string>;
  protectData: boolean;
  /** Read access for the functions whose route-table entry lists `secrets`. */
  secrets?: CheckoutSecrets;
  /** Decryption of webhook signing secrets, for the functions whose route-table entry says `signingKey`. */
  signingKey?: SigningKey;
  /**
   * Reserved concurrency: per-function overrides of the route table's `reservedConcurrency`, or `off` for none
   * at all (an account whose concurrency quota is too small to reserve any).
   */
  reservedConcurrency?: ReservedConcurrency;
}

export type ReservedConcurrency = 'off' | Partial<Record<HandlerName, number>>;

/** The reserved concurrency a handler's function gets: the override, else the route table's, else none. */
export function reservedConcurrencyOf(
  handler: HandlerName,
  overrides: ReservedConcurrency = {},
): number | undefined {
  if (overrides === 'off') return undefined;
  return overrides[handler] ?? (functions[handler] as FunctionDefinition).reservedConcurrency;
}

/**
 * Every Lambda function of the service, one per handler of `functions` in lib/routes.ts, created on first use
 * by whoever wires it (API routes, schedules, queue consumers), in the nested stack of its surface
 * (lib/surfaces.ts). Each gets exactly the DynamoDB actions the table lists for it, on this table only, and queue
 * send rights only if it `sendsEvents`.
 */
export class ServiceFunctions extends Construct {
  private readonly props: ServiceFunctionsProps;
  private readonly created = new Map<HandlerName, LambdaFunction>();
  private readonly surfaces = new Map<Surface, SurfaceStack>();

  constructor(scope: Construct, id: string, props: ServiceFunctionsProps) {
    super(scope, id);
    this.props = props;
  }

  /** The reserved concurrency of a handler's function in this deployment, or undefined (none). */
  reservedConcurrency(handler: HandlerName): number | undefined {
    return reservedConcurrencyOf(handler, this.props.reservedConcurrency);
  }

  get(handler: HandlerName): LambdaFunction {
    const existing = this.created.get(handler);
    if (existing) return existing;
    const { table, eventQueue, environment, protectData } = this.props;
    const definition: FunctionDefinition = functions[handler];
    const fn = new ServiceFunction(this.surface(surfaceOf[handler]).functions, toConstructId(handler), {
      handler,
      environment: { ...environment, ...(definition.clientAddress && this.props.clientAddressEnvironment) },
      timeout: Duration.seconds(timeoutSecondsOf(handler)),
      reservedConcurrentExecutions: reservedConcurrencyOf(handler, this.props.reservedConcurrency),
      logRemovalPolicy: protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    }).function;
    const tableActions = tableActionsOf(handler);
    // Each index by name rather than `index/*`: no wildcard for cdk-nag (AwsSolutions-IAM5) to flag.
    const indexArns = this.props.tableIndexes.map((name) => `${table.tableArn}/index/${name}`);
    if (tableActions.length) {
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: tableActions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn, ...(tableActions.includes('Query') ? indexArns : [])],
        }),
      );
    }
    if (tableActions.length && isPublicFacing(handler)) {
      // Whatever its actions allow, a public-facing function never reaches API keys or signing secrets.
      fn.addToRolePolicy(
        new PolicyStatement({
          effect: Effect.DENY,
          actions: tableActions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn, ...indexArns],
          conditions: {
            'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': [...PUBLIC_DENIED_KEY_PATTERNS] },
          },
        }),
      );
    }
    if (definition.signingKey) {
      this.props.signingKey?.grantUse(fn, definition.signingKey === 'seal' ? 'seal' : 'open');
    }
    if (definition.sendsEvents) eventQueue.grantSendMessages(fn);
    if (definition.sendsDeadLetters) this.props.deadLetterQueue?.grantSendMessages(fn);
    if (definition.secrets?.length) this.props.secrets?.grantRead(fn, definition.secrets);
    this.created.set(handler, fn);
    return fn;
  }

  private surface(surface: Surface): SurfaceStack {
    let stack = this.surfaces.get(surface);
    if (!stack) {
      stack = new SurfaceStack(this, surface);
      this.surfaces.set(surface, stack);
    }
    return stack;
  }
}

/**
 * One surface of the service as a nested stack (docs/operations.md#stack-size): its functions and what belongs to
 * each of them alone (role, policy, log group, API integration and invoke permission, queue event source). It
 * deploys with the root stack, whose table, queues, keys, secrets and API it receives as parameters.
 */
export class SurfaceStack extends NestedStack {
  /** Where the functions are built: their logical ids read `Functions<Handler>Function…`, as in the root before. */
  readonly functions: Construct;

  constructor(scope: Construct, surface: Surface) {
    super(scope, surface, { description: `Payment links: ${SURFACES[surface]}` });
    this.functions = new Construct(this, 'Functions');
  }
}

export const toConstructId = (handler: string) =>
  handler.replace(/(^|-)(\w)/g, (_match, _dash, letter: string) => letter.toUpperCase());
