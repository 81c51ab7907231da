import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ContractExchange, PspContract } from './psp-contract.ts';

/**
 * The HTTPS server under the fakes of PSPs whose official SDKs only speak HTTPS (they hand Node an
 * `https.Agent`), some pinning their own CA bundle, so a local certificate cannot be made trusted: tests
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

export type PspRequestHandler = (request: RecordedPspRequest, url: URL) => Answer | 'hang';

export interface FakePspServer {
  url: string;
  requests: RecordedPspRequest[];
  /** Every request and answer, as the contract saw them (with a contract). */
  exchanges: ContractExchange[];
  /** What broke the PSP's document: requests it refuses, and answers it could not give. */
  violations: string[];
  stop(): Promise<void>;
}

/**
 * The PSP's document the server holds requests and answers to: a request that breaks it is answered with
 * `refuse` (the PSP's own refusal), an answer that breaks it becomes a 500 naming the violation. Both are
 * recorded in `violations`, which the suite's tests expect empty for what the adapters send.
 */
export interface ServerContract {
  document: PspContract;
  /** The API's base path, which the document's paths leave out (a version, `/v72`, and a prefix live). */
  basePath?: RegExp;
  /** Paths that are no part of the API (a hosted page for the buyer's browser): the document does not judge them. */
  outside?: (path: string) => boolean;
  refuse(violations: string[]): Answer;
}

export async function startFakePspServer(
  contentType: string,
  handle: PspRequestHandler,
  contract?: ServerContract,
): Promise<FakePspServer> {
  const requests: RecordedPspRequest[] = [];
  const exchanges: ContractExchange[] = [];
  const violations: string[] = [];
  /** The PSP's refusal of a request that breaks its document, before the fake acts on it; else undefined. */
  const refusal = (recorded: RecordedPspRequest, url: URL) => {
    if (!contract || contract.outside?.(url.pathname)) return undefined;
    const exchange = exchangeOf(contract, recorded, url);
    const refused = contract.document.checkRequest(exchange);
    if (refused.length === 0) return undefined;
    violations.push(...refused.map((violation) => `${recorded.method} ${exchange.path}: ${violation}`));
    const answer = contract.refuse(refused);
    exchanges.push({ ...exchange, status: answer.status, response: answer.body });
    return answer;
  };
  /** The answer as the contract lets it go out: one the PSP could not give becomes a 500 that names why. */
  const judged = (recorded: RecordedPspRequest, url: URL, answer: Answer): Answer => {
    if (!contract || contract.outside?.(url.pathname)) return answer;
    const exchange = { ...exchangeOf(contract, recorded, url), status: answer.status, response: answer.body };
    exchanges.push(exchange);
    const wrong = contract.document.checkResponse(exchange);
    if (wrong.length === 0) return answer;
    const named = wrong.map((violation) => `${recorded.method} ${exchange.path}: ${violation}`);
    violations.push(...named);
    if (answer.status >= 500) return answer;
    // Loud in every SDK's error message, whichever field it reads: `detail` or `message`.
    const message = `The fake broke the PSP's document: ${named.join('; ')}`;
    return { status: 500, body: { status: 500, detail: message, message, fake_contract_violation: named } };
  };
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
    const refused = refusal(recorded, url);
    const handled = refused ?? handle(recorded, url);
    if (handled === 'hang') return; // never answers: the caller's budget must end the call
    const answer = refused ?? judged(recorded, url, handled);
    response.writeHead(answer.status, { 'content-type': contentType, ...answer.headers });
    response.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    exchanges,
    violations,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An answer: `body` as JSON, or `raw` as it is (a hosted page's HTML, with its own content-type header). */
type Answer = { status: number; body: unknown; raw?: string; headers?: Record<string, string> };

function exchangeOf(contract: ServerContract, recorded: RecordedPspRequest, url: URL) {
  const path = contract.basePath ? url.pathname.replace(contract.basePath, '') : url.pathname;
  let body: unknown;
  try {
    body = recorded.body === '' ? undefined : JSON.parse(recorded.body);
  } catch {
    body = recorded.body;
  }
  return { method: recorded.method, path, body, status: 0, response: undefined as unknown };
}

let fakeCertificateTrusts = 0;
let rejectUnauthorizedBefore: string | undefined;

/**
 * Lets this test worker's HTTPS clients accept the fakes' self-signed certificate; returns the undo. Counted, so
 * that blocks running at once (`forEveryPsp(..., { concurrent: true })`) each trust and undo in any order: the
 * setting is restored when the last undoes its trust.
 */
export function trustFakePspCertificate(): () => void {
  if (fakeCertificateTrusts++ === 0) rejectUnauthorizedBefore = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  let undone = false;
  return () => {
    if (undone) return;
    undone = true;
    if (--fakeCertificateTrusts > 0) return;
    if (rejectUnauthorizedBefore === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    else process.env.NODE_TLS_REJECT_UNAUTHORIZED = rejectUnauthorizedBefore;
  };
}
