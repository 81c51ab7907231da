import { mkdirSync } from 'node:fs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';

export interface EmbeddedSqs {
  endpoint: string;
  server: FauxqsServer;
  stop(): Promise<void>;
}

/**
 * An SQS emulator (fauxqs) on loopback, persisted under `dataDir` (in memory when omitted). It speaks the real
 * SQS protocol, so the handlers' SQS client and the local event-source poller use the real AWS SDK against it.
 */
export async function startEmbeddedSqs(options: { dataDir?: string }): Promise<EmbeddedSqs> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const server = await startFauxqs({ port: 0, host: '127.0.0.1', logger: false, dataDir: options.dataDir });
  return { endpoint: server.address, server, stop: () => server.stop() };
}
