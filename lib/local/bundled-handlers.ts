import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import {
  esbuildOptions,
  LAMBDA_BUNDLE_FILE,
  lambdaEnvironment,
  pruneUnreachable,
} from '../bundling/lambda-bundling.ts';
import { functions, type HandlerName } from '../routes.ts';
import type { HandlerLoader } from './api-gateway.ts';
import type { Invocation, RuntimeMessage } from './lambda-runtime.ts';

const projectRoot = join(import.meta.dirname, '..', '..');

/** Where each function's bundle is: `<outdir>/<handler>/index.mjs`, its chunks beside it. */
export type BundleFiles = ReadonlyMap<HandlerName, string>;

/**
 * Builds the bundle of every function of lib/routes.ts with the options `cdk synth` uses
 * (lib/bundling/lambda-bundling.ts; test/infra/bundles.test.ts checks they are the same bytes): each function's
 * folder is its Lambda asset, `index.mjs`, its chunks and their source maps.
 */
export async function buildFunctionBundles(outdir: string): Promise<BundleFiles> {
  const names = Object.keys(functions) as HandlerName[];
  const built = await Promise.all(
    names.map(async (name) => {
      const dir = join(outdir, name);
      // A rebuild into a folder of old chunks would leave them beside the new ones.
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      const { metafile } = await build({
        ...esbuildOptions(join(projectRoot, 'functions', 'handlers', `${name}.ts`), dir),
        absWorkingDir: projectRoot,
        metafile: true,
      });
      pruneUnreachable(metafile, projectRoot);
      return [name, join(dir, LAMBDA_BUNDLE_FILE)] as const;
    }),
  );
  return new Map(built);
}

export interface BundledHandlersOptions {
  /** Node options of each container (the tests' instrumentation); none by default, as on Lambda. */
  execArgv?: string[];
  /** Receives what a container writes to stdout and stderr (its logs); by default this process's own. */
  onOutput?: (handler: HandlerName, stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /** Told of every finished invocation, with the error it ended in, if any. */
  onInvocation?: (handler: HandlerName, error?: Error) => void;
}

export interface BundledHandlers {
  loadHandler: HandlerLoader;
  /** Ends every container. */
  stop(): Promise<void>;
}

type Pending = { name: HandlerName; resolve: (result: unknown) => void; reject: (error: Error) => void };

/**
 * A new container of the function `name` running its bundle `file`, with the function's environment (see
 * `bundledHandlers`), its output handed to `onOutput`.
 */
function forkContainer(name: HandlerName, file: string, options: BundledHandlersOptions): ChildProcess {
  const { NODE_OPTIONS: _inherited, ...environment } = process.env;
  const child = fork(join(import.meta.dirname, 'lambda-runtime.ts'), [file], {
    execArgv: options.execArgv ?? [],
    env: { ...environment, ...lambdaEnvironment, AWS_LAMBDA_FUNCTION_NAME: name },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output = options.onOutput ?? ((_, stream, chunk) => process[stream].write(chunk));
  child.stdout?.on('data', (chunk: Buffer) => output(name, 'stdout', chunk));
  child.stderr?.on('data', (chunk: Buffer) => output(name, 'stderr', chunk));
  return child;
}

/**
 * Runs each function from its bundle in a container of its own (lib/local/lambda-runtime.ts), started on the
 * first invocation with the function's environment: this process's configuration (what the local stack sets,
 * the same variables the CDK stack gives every function) plus `lambdaEnvironment`, and no inherited
 * NODE_OPTIONS. A container stays warm and takes concurrent invocations.
 *
 * IAM is not emulated here: the containers' bundled SDK clients cannot be hooked from outside
 * (lib/local/permissions.ts checks the TypeScript handlers; test/infra checks the policies).
 */
export function bundledHandlers(bundles: BundleFiles, options: BundledHandlersOptions = {}): BundledHandlers {
  const containers = new Map<HandlerName, Promise<ChildProcess>>();
  const pending = new Map<number, Pending>();
  let nextId = 0;

  const start = (name: HandlerName): Promise<ChildProcess> => {
    const file = bundles.get(name);
    if (!file) return Promise.reject(new Error(`No bundle for ${name}`));
    const child = forkContainer(name, file, options);
    return new Promise((resolve, reject) => {
      child.on('message', (message: RuntimeMessage) => {
        if (message.type === 'ready') resolve(child);
        else if (message.type === 'init-error') reject(new Error(`${name}: ${message.message}`));
        else {
          const waiting = pending.get(message.id);
          pending.delete(message.id);
          if (message.type === 'result') waiting?.resolve(message.result);
          else waiting?.reject(Object.assign(new Error(message.error.message), message.error));
        }
      });
      child.on('exit', (code) => {
        reject(new Error(`${name}: the container exited with ${code} during init`));
        // As on Lambda, a container that crashed fails its invocations, and the next one starts a new container.
        containers.delete(name);
        for (const [id, waiting] of pending) {
          if (waiting.name !== name) continue;
          pending.delete(id);
          waiting.reject(new Error(`${name}: the container exited with ${code}`));
        }
      });
    });
  };

  const loadHandler = (async (name: HandlerName) => {
    let container = containers.get(name);
    if (!container) {
      container = start(name);
      containers.set(name, container);
    }
    const child = await container;
    return (event: unknown, context: Context) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, {
          name,
          resolve: (result) => {
            options.onInvocation?.(name);
            resolve(result);
          },
          reject: (error) => {
            options.onInvocation?.(name, error);
            reject(error);
          },
        });
        const { getRemainingTimeInMillis, done: _done, fail: _fail, succeed: _succeed, ...fields } = context;
        const invocation: Invocation = { id, event, context: fields, timeoutMs: getRemainingTimeInMillis() };
        child.send(invocation);
      });
  }) as unknown as HandlerLoader;

  return {
    loadHandler,
    async stop() {
      const running = await Promise.allSettled(containers.values());
      await Promise.all(
        running.map((container) =>
          container.status === 'fulfilled' && container.value.exitCode === null
            ? new Promise((resolve) => {
                container.value.once('exit', resolve);
                container.value.disconnect();
              })
            : undefined,
        ),
      );
      for (const waiting of pending.values()) waiting.reject(new Error('the container was stopped'));
    },
  };
}
