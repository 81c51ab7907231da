import { existsSync } from 'node:fs';
import { PSP_DESCRIPTORS } from '../../functions/adapters/psp/registry.ts';

/**
 * The SDKs a function's baseline may hold: the official clients we cannot do without, each as a user without
 * our code would use it (a client at module scope, called in the handler). A function is judged against the
 * bare bundle of the ones it carries, read from its esbuild metafile, with the same commands of each AWS client
 * (they bring their schemas), so a function that starts carrying an SDK or a command (a new PSP, KMS) is judged
 * against a baseline with it, and one that stops is judged without it.
 *
 * DynamoDB is in every baseline (a PutItem at least): every function of the service needs the table, and
 * those that do not are judged against it too. Besides AWS clients, the official libraries of the protocols we
 * speak count as SDKs: each PSP's, Standard Webhooks', and Powertools Metrics for CloudWatch's Embedded Metric
 * Format (the way our metrics must reach CloudWatch, docs/operations.md#metrics); so does Powertools Logger, the
 * functions' structured logs (docs/decisions.md#tooling). Adding an SDK: one entry here, or a PSP's in its folder;
 * only baselines of bundles that carry it build its code.
 */
export interface BaselineSdk {
  /** The package; a function carries it when any of its files is in the bundle. */
  package: string;
  /** What the baseline binds from `package`: its default export, and/or named exports. */
  binds: { default?: string; named?: string[] };
  /**
   * An AWS SDK client: built once at module scope by `create`, sent one of each command the function carries
   * from `commandsFrom`'s `commands/` folder (its own package, or lib-dynamodb for DynamoDB).
   */
  client?: { create: string; commandsFrom: string; defaultCommand?: string };
  /** Otherwise one call, made in the handler, so nothing of the SDK is tree-shaken away. */
  call?: string;
}

/** The SDKs of every function's kind; each PSP's comes from its folder (`PSP_BASELINES`). */
const OUR_SDKS: Readonly<Record<string, BaselineSdk>> = {
  dynamodb: {
    package: '@aws-sdk/client-dynamodb',
    binds: { named: ['DynamoDBClient'] },
    client: {
      create:
        'DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } })',
      commandsFrom: '@aws-sdk/lib-dynamodb',
      defaultCommand: 'PutCommand',
    },
  },
  sqs: {
    package: '@aws-sdk/client-sqs',
    binds: { named: ['SQSClient'] },
    client: { create: 'new SQSClient({})', commandsFrom: '@aws-sdk/client-sqs' },
  },
  'secrets-manager': {
    package: '@aws-sdk/client-secrets-manager',
    binds: { named: ['SecretsManagerClient'] },
    client: { create: 'new SecretsManagerClient({})', commandsFrom: '@aws-sdk/client-secrets-manager' },
  },
  kms: {
    package: '@aws-sdk/client-kms',
    binds: { named: ['KMSClient'] },
    client: { create: 'new KMSClient({})', commandsFrom: '@aws-sdk/client-kms' },
  },
  // Standard Webhooks' own library signs our webhooks (docs/webhooks.md): the delivery function's official SDK.
  'standard-webhooks': {
    package: 'standardwebhooks',
    binds: { named: ['Webhook'] },
    call: "new Webhook(event.secret).sign('msg_1', new Date(), '{}');",
  },
  // Powertools Metrics writes CloudWatch's Embedded Metric Format: the functions' official metrics library.
  'powertools-metrics': {
    package: '@aws-lambda-powertools/metrics',
    binds: { named: ['Metrics'] },
    call: "const metrics = new Metrics({ namespace: 'Bare' }); metrics.addMetric('Calls', 'Count', 1); metrics.publishStoredMetrics();",
  },
  // Powertools Logger writes the functions' structured JSON log lines (docs/operations.md#logs).
  'powertools-logger': {
    package: '@aws-lambda-powertools/logger',
    binds: { named: ['Logger'] },
    call: "new Logger({ serviceName: 'bare' }).warn('bare');",
  },
  // Vega-Lite and Vega draw the console overview's charts into SVG on the server (docs/console.md#overview): the
  // charting library that function cannot do without, as the PSPs' SDKs are for theirs.
  'vega-lite': {
    package: 'vega-lite',
    binds: { named: ['compile'] },
    call: "(globalThis as any).chartSpec = compile({ data: { values: [{ a: 1 }] }, mark: 'bar', encoding: { y: { field: 'a', type: 'quantitative' } } });",
  },
  vega: {
    package: 'vega',
    binds: { named: ['View', 'parse'] },
    call: "await new View(parse({ marks: [{ type: 'rect' }] }), { renderer: 'none' }).toSVG();",
  },
};

/** A PSP's SDK as a baseline holds it, from its folder's `test/sdk-baseline.ts`: `name` is its baselines' word. */
export interface PspSdkBaseline extends BaselineSdk {
  name: string;
}

/**
 * Each registered PSP's SDK, from its folder (`test/sdk-baseline.ts`, which a PSP without an SDK of its own, the
 * sandbox, has not), in the registry's order: adding a PSP adds its SDK here without a line of this file.
 */
const PSP_BASELINES: readonly PspSdkBaseline[] = (
  await Promise.all(
    PSP_DESCRIPTORS.map(async (descriptor) => {
      const module = new URL(
        `../../functions/adapters/psp/${descriptor.id.replaceAll('_', '-')}/test/sdk-baseline.ts`,
        import.meta.url,
      );
      if (!existsSync(module)) return [];
      return [((await import(module.href)) as { sdkBaseline: PspSdkBaseline }).sdkBaseline];
    }),
  )
).flat();

export const BASELINE_SDKS: Readonly<Record<string, BaselineSdk>> = {
  ...OUR_SDKS,
  ...Object.fromEntries(PSP_BASELINES.map(({ name, ...sdk }) => [name, sdk])),
};

/** The PSP SDKs among them (a function carrying several is one of the heaviest; see budgets.ts). */
export const PSP_SDKS: readonly string[] = PSP_BASELINES.map((sdk) => sdk.name);
