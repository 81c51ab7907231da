import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { esbuildOptions, LAMBDA_BUNDLE_FILE } from '../../lib/bundling/lambda-bundling.ts';
import { type FunctionDefinition, functions } from '../../lib/routes.ts';

export const projectRoot = join(import.meta.dirname, '..', '..');
const handlersDir = join(projectRoot, 'functions', 'handlers');

/**
 * A handler is measured against the bare SDK clients it cannot do without, bundled the same way and each doing
 * one call: the DynamoDB client + lib-dynamodb for all, plus the SQS client for functions that send to the
 * events queue, the Secrets Manager client for those that read secrets, the KMS client for those that open
 * webhook signing secrets (`signingKey`), and the official Stripe SDK for those
 * that talk to PSPs (lib/routes.ts says which). What the ratio measures is then what *we* add.
 */
export const BASELINE = 'bare-dynamodb-client';
const baselineEntry = join(import.meta.dirname, 'bare-dynamodb-put.ts');

type SdkPart = 'sqs' | 'secrets-manager' | 'kms' | 'stripe';

const SDK_PARTS: Record<SdkPart, { imports: string; call: string }> = {
  sqs: {
    imports: "import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';",
    call: "await new SQSClient({}).send(new SendMessageCommand({ QueueUrl: event.queueUrl, MessageBody: '{}' }));",
  },
  'secrets-manager': {
    imports: "import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';",
    call: 'await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: event.secretId }));',
  },
  kms: {
    imports: "import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';",
    call: 'await new KMSClient({}).send(new DecryptCommand({ CiphertextBlob: new Uint8Array(event.blob) }));',
  },
  stripe: {
    imports: "import Stripe from 'stripe';",
    call: "await new Stripe(event.secretId).checkout.sessions.expire('cs_1');",
  },
};

/** The baseline a handler is judged against: `bare-dynamodb-client`, or it plus the other SDKs it needs. */
export function baselineFor(handler: string): string {
  const definition: FunctionDefinition | undefined = (functions as Record<string, FunctionDefinition>)[
    handler
  ];
  const parts: SdkPart[] = [];
  if (definition?.sendsEvents || definition?.sendsDeadLetters) parts.push('sqs');
  if (definition?.secrets?.length) parts.push('secrets-manager');
  if (definition?.signingKey) parts.push('kms');
  if (definition?.secrets?.includes('psp')) parts.push('stripe');
  return parts.length ? `${BASELINE}+${parts.join('+')}` : BASELINE;
}

function baselineSource(name: string): string {
  const parts = name.split('+').slice(1) as SdkPart[];
  return [
    ...parts.map((part) => SDK_PARTS[part].imports),
    `import { handler as put } from './bare-dynamodb-put.ts';`,
    'export const handler = async (event: any) => {',
    ...parts.map((part) => `  ${SDK_PARTS[part].call}`),
    '  return put(event);',
    '};',
  ].join('\n');
}

export interface Bundle {
  name: string;
  /** For a handler, the name of the baseline bundle it is judged against (see `baselineFor`). */
  baseline?: string;
  /** The built index.mjs, as in the Lambda asset. */
  file: string;
  bytes: number;
  gzipBytes: number;
  /** The source map shipped next to it (with --enable-source-maps, Node reads and parses it at import). */
  mapBytes: number;
  /** Every source file that contributed bytes, relative to the project root (from esbuild's metafile). */
  inputs: string[];
}

/** Every Lambda entry point: each file of functions/handlers/ (new handlers are picked up on their own). */
export function handlerNames(): string[] {
  return readdirSync(handlersDir)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -3))
    .sort();
}

/**
 * Builds every handler and the baseline with the options `cdk synth` uses (lib/bundling/lambda-bundling.ts),
 * all at once, into `outdir/<name>/index.mjs`. The baseline comes last.
 */
export async function buildBundles(outdir: string): Promise<Bundle[]> {
  const handlers = handlerNames();
  const baselines = [...new Set([BASELINE, ...handlers.map(baselineFor)])];
  const entries = [
    ...handlers.map((name) => ({
      name,
      entry: join(handlersDir, `${name}.ts`),
      baseline: baselineFor(name),
    })),
    ...baselines.map((name) => ({ name, entry: baselineEntry, baseline: undefined })),
  ];
  return Promise.all(
    entries.map(async ({ name, entry, baseline }) => {
      const dir = join(outdir, name);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, LAMBDA_BUNDLE_FILE);
      const options = esbuildOptions(entry, file);
      const isCombinedBaseline = name.startsWith(`${BASELINE}+`);
      const { metafile } = await build({
        ...options,
        ...(isCombinedBaseline && {
          entryPoints: undefined,
          stdin: { contents: baselineSource(name), resolveDir: import.meta.dirname, loader: 'ts' as const },
        }),
        absWorkingDir: projectRoot,
        metafile: true,
      });
      const output = Object.entries(metafile.outputs).find(([path]) =>
        path.endsWith(LAMBDA_BUNDLE_FILE),
      )?.[1];
      const code = readFileSync(file);
      return {
        name,
        baseline,
        file,
        bytes: code.length,
        gzipBytes: gzipSync(code, { level: 9 }).length,
        mapBytes: readFileSync(`${file}.map`).length,
        inputs: Object.entries(output?.inputs ?? {})
          .filter(([, input]) => input.bytesInOutput > 0)
          .map(([path]) => path),
      };
    }),
  );
}
