/**
 * One function's container, run as the Lambda nodejs24.x runtime runs it: a fresh Node.js process that imports
 * the bundle's `index.mjs` (handler `index.handler`) with the function's environment, then invokes the
 * `handler` export once per event it is sent. Forked by lib/local/bundled-handlers.ts; talks over IPC.
 */
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

/** A Lambda context without its functions, which cannot cross a process boundary. */
export type ContextFields = Omit<Context, 'getRemainingTimeInMillis' | 'done' | 'fail' | 'succeed'>;

export interface Invocation {
  id: number;
  event: unknown;
  context: ContextFields;
  timeoutMs: number;
}

export type RuntimeMessage =
  | { type: 'ready' }
  | { type: 'init-error'; message: string }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: { name: string; message: string; stack?: string } };

const send = (message: RuntimeMessage) => process.send?.(message);

async function main(bundleFile: string) {
  let handler: unknown;
  try {
    ({ handler } = await import(pathToFileURL(bundleFile).href));
  } catch (error) {
    send({ type: 'init-error', message: `importing ${bundleFile} failed: ${(error as Error).stack}` });
    return;
  }
  if (typeof handler !== 'function') {
    send({ type: 'init-error', message: `${bundleFile} exports no function named handler` });
    return;
  }
  const invoke = handler as (event: unknown, context: Context) => Promise<unknown>;
  process.on('message', async ({ id, event, context, timeoutMs }: Invocation) => {
    const deadline = Date.now() + timeoutMs;
    try {
      const result = await invoke(event, {
        ...context,
        getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
        done: () => undefined,
        fail: () => undefined,
        succeed: () => undefined,
      });
      send({ type: 'result', id, result });
    } catch (caught) {
      const error = caught as Error;
      // What the runtime logs for a failed invocation.
      console.error(
        JSON.stringify({
          errorType: error.name,
          errorMessage: error.message,
          stackTrace: error.stack?.split('\n'),
        }),
      );
      send({ type: 'error', id, error: { name: error.name, message: error.message, stack: error.stack } });
    }
  });
  send({ type: 'ready' });
}

process.on('disconnect', () => process.exit(0));
await main(process.argv[2] as string);
