import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The HTTPS server under the Mollie and Adyen fakes. Both official SDKs only speak HTTPS (they hand Node an
 * `https.Agent`), and Mollie's pins its own CA bundle, so a local certificate cannot be made trusted: tests
 * that use these fakes turn certificate verification off for their own worker with `trustFakePspCertificate`.
 */
const certificate = {
  key: readFileSync(new URL('./tls/fake-psp.key', import.meta.url)),
  cert: readFileSync(new URL('./tls/fake-psp.crt', import.meta.url)),
};

export interface RecordedPspRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type PspRequestHandler = (
  request: RecordedPspRequest,
  url: URL,
) => { status: number; body: unknown; headers?: Record<string, string> } | 'hang';

export interface FakePspServer {
  url: string;
  requests: RecordedPspRequest[];
  stop(): Promise<void>;
}

export async function startFakePspServer(
  contentType: string,
  handle: PspRequestHandler,
): Promise<FakePspServer> {
  const requests: RecordedPspRequest[] = [];
  const server = createServer(certificate, async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'https://fake.psp');
    const recorded = {
      method: request.method ?? '',
      path: url.pathname,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    requests.push(recorded);
    const answer = handle(recorded, url);
    if (answer === 'hang') return; // never answers: the caller's budget must end the call
    response.writeHead(answer.status, { 'content-type': contentType, ...answer.headers });
    response.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Lets this test worker's HTTPS clients accept the fakes' self-signed certificate; returns the undo. */
export function trustFakePspCertificate(): () => void {
  const before = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  return () => {
    if (before === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = before;
  };
}
