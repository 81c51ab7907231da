import { join } from 'node:path';
import { AssetHashType, DockerImage, Duration, type ILocalBundling, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  Code,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { esbuildOptions, lambdaEnvironment, pruneUnreachable } from '../bundling/lambda-bundling.ts';
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
 * Builds a function's asset with the local esbuild when `cdk synth` stages it (lib/bundling/lambda-bundling.ts).
 * NodejsFunction cannot: it passes esbuild `--outfile`, and code splitting needs `--outdir` (esbuild refuses
 * both), so the asset is a `Code.fromAsset` whose bundling is this, never Docker. `entry` is a field so that CDK's
 * asset cache, which keys on the bundling options, tells two functions apart.
 */
class EsbuildLocalBundling implements ILocalBundling {
  readonly entry: string;

  constructor(entry: string) {
    this.entry = entry;
  }

  tryBundle(outputDir: string): boolean {
    // Synchronous, as CDK's staging is: esbuild's buildSync runs the same build as its async `build`.
    const { metafile } = buildSync({
      ...esbuildOptions(this.entry, outputDir),
      absWorkingDir: projectRoot,
      metafile: true,
    });
    pruneUnreachable(metafile, projectRoot);
    return true;
  }
}

/**
 * Every Lambda function of the service, built one way: Node.js 24 on arm64, an ESM bundle made by the local
 * esbuild (never Docker): `index.mjs` with what the cold start needs, and beside it a chunk for each part only
 * some calls need (each PSP's SDK), minified, each with its source map (read only when an error is logged); JSON
 * logs kept for a month.
 *
 * The AWS SDK is bundled rather than taken from the runtime: the versions are the ones the tests ran, and
 * esbuild keeps only the clients a function imports, which loads faster than the runtime's full SDK.
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;

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
    const entry = join(projectRoot, 'functions', 'handlers', `${props.handler}.ts`);
    this.function = new LambdaFunction(this, 'Function', {
      code: Code.fromAsset(projectRoot, {
        // The hash of what is built, not of the project folder (node_modules and all).
        assetHashType: AssetHashType.OUTPUT,
        bundling: {
          local: new EsbuildLocalBundling(entry),
          // Required by CDK, never pulled: the local bundling always builds or throws.
          image: DockerImage.fromRegistry('local-esbuild-only'),
        },
      }),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(DEFAULT_TIMEOUT_SECONDS),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      loggingFormat: LoggingFormat.JSON,
      // Lambda's own platform.start and platform.report lines (about 450 B per invocation, more than our own
      // lines per request) are INFO: dropped. Its warnings and errors (a timeout, a crash) stay; durations and
      // cold starts are in the Lambda metrics (docs/performance.md#cost-per-million-links).
      systemLogLevelV2: SystemLogLevel.WARN,
      logGroup,
      role,
      environment: {
        ...lambdaEnvironment,
        ...props.environment,
      },
    });
  }
}
