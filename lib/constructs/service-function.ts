import { join } from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, LoggingFormat, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { lambdaBundling, lambdaEnvironment } from '../bundling/lambda-bundling.ts';
import { DEFAULT_TIMEOUT_SECONDS } from '../routes.ts';

const projectRoot = join(import.meta.dirname, '..', '..');

export interface ServiceFunctionProps {
  /** File in functions/handlers/ without `.ts`. */
  handler: string;
  environment: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
  /** Concurrent invocations kept for this function, and its ceiling; none: it shares the account's pool. */
  reservedConcurrentExecutions?: number;
  /** Removal policy of the function's log group. */
  logRemovalPolicy: RemovalPolicy;
}

/**
 * Every Lambda function of the service, built one way: Node.js 24 on arm64, an ESM bundle made by the local
 * esbuild (never Docker), minified with a source map beside it (read only when an error is logged), JSON logs kept
 * for a month.
 *
 * The AWS SDK is bundled rather than taken from the runtime: the versions are the ones the tests ran, and
 * esbuild keeps only the clients a function imports, which loads faster than the runtime's full SDK.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy,
    });
    // Our own role instead of AWSLambdaBasicExecutionRole: it may write to its own log group and nothing else.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(projectRoot, 'functions', 'handlers', `${props.handler}.ts`),
      projectRoot,
      depsLockFilePath: join(projectRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(DEFAULT_TIMEOUT_SECONDS),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      role,
      environment: {
        ...lambdaEnvironment,
        ...props.environment,
      },
      bundling: {
        ...lambdaBundling,
        format: lambdaBundling.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
        mainFields: [...lambdaBundling.mainFields],
        externalModules: [...lambdaBundling.externalModules],
        forceDockerBundling: false,
      },
    });
  }
}
