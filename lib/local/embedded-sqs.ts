import { mkdirSync } from 'node:fs';
import { Server } from 'node:net';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { emulateFairQueues } from './fair-queue.ts';

export interface EmbeddedSqs {
  endpoint: string;
  server: FauxqsServer;
  stop(): Promise<void>;
}

/**
 * fauxqs 2.4 listens on 0.0.0.0 whatever `host` it is given, which would open the local queue to the network.
 * While it starts, a wildcard bind is turned into a loopback one (the only listen call in that window).
 */
async function onLoopbackOnly<T>(start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const [options] = args;
    if (options && typeof options === 'object' && (options as { host?: string }).host === '0.0.0.0') {
      args[0] = { ...options, host: '127.0.0.1' };
    }
    return (listen as (...listenArgs: unknown[]) => Server).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}

/**
 * An SQS emulator (fauxqs) on loopback, persisted under `dataDir` (in memory when omitted). It speaks the real
 * SQS protocol, so the handlers' SQS client and the local event-source poller use the real AWS SDK against it.
 * Its standard queues are fair queues, as on AWS (./fair-queue.ts).
 */
export async function startEmbeddedSqs(options: { dataDir?: string }): Promise<EmbeddedSqs> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  await emulateFairQueues();
  const server = await onLoopbackOnly(() =>
    startFauxqs({ port: 0, host: '127.0.0.1', logger: false, dataDir: options.dataDir }),
  );
  return { endpoint: server.address, server, stop: () => server.stop() };
}
