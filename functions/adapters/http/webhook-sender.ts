import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { isPublicAddress } from '../../domain/urls.ts';
import { type AttemptResult, parseRetryAfter, WEBHOOK_TIMEOUT_MS } from '../../domain/webhook.ts';
import type { WebhookRequest, WebhookSender } from '../../ports/webhook-sender.ts';

export interface HttpWebhookSenderOptions {
  /** Loopback and private destinations: only where the deployment allows them (the local stack). */
  allowPrivateTargets: boolean;
  /** Deadline of the whole attempt, connect to last response byte; 15 s unless a test shortens it. */
  timeoutMs?: number;
  /** Name resolution (tests point names at chosen addresses); the system resolver by default. */
  lookup?: LookupFunction;
}

/** Bytes of a response body read before the connection is dropped: only the status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

class BlockedAddressError extends Error {}

/**
 * Webhook POSTs over node:http(s), one fresh connection per attempt. SSRF defence at connect time: the
 * request-filtering agents check the address the socket is about to connect to, after resolution (so DNS
 * rebinding between a check and the connect is impossible); IP literals are refused before any socket opens.
 * Redirects are never followed (node:http does not) and count as failures.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly options: HttpWebhookSenderOptions;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(options: HttpWebhookSenderOptions) {
    this.options = options;
    const filter = {
      allowPrivateIPAddress: options.allowPrivateTargets,
      allowMetaIPAddress: options.allowPrivateTargets,
      // What isPublicAddress refuses beyond the agent's own ranges: the IPv4-compatible ::a.b.c.d form.
      denyIPAddressList: options.allowPrivateTargets ? [] : ['::/96'],
      keepAlive: false,
    };
    this.httpAgent = new RequestFilteringHttpAgent(filter);
    this.httpsAgent = new RequestFilteringHttpsAgent(filter);
  }

  async send(request: WebhookRequest): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(request.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BlockedAddressError();
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!this.options.allowPrivateTargets && ipaddr.isValid(host) && !isPublicAddress(host)) {
        throw new BlockedAddressError();
      }
      const response = await this.post(url, request);
      return {
        status_code: response.statusCode,
        duration_ms: elapsed(),
        error: response.statusCode >= 300 && response.statusCode < 400 ? 'Redirects are not followed.' : null,
        retry_after_ms: parseRetryAfter(response.retryAfter, new Date()),
      };
    } catch (error) {
      return { status_code: null, duration_ms: elapsed(), error: describe(error) };
    }
  }

  private post(url: URL, request: WebhookRequest): Promise<{ statusCode: number; retryAfter?: string }> {
    const timeoutMs = this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const outgoing = client.request(url, {
        method: 'POST',
        agent: url.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        ...(this.options.lookup ? { lookup: this.options.lookup } : {}),
      });
      let answered: { statusCode: number; retryAfter?: string } | undefined;
      const deadline = setTimeout(() => {
        // Whatever state the exchange is in, the attempt ends now: with the status if one arrived.
        outgoing.destroy(new TimeoutError(timeoutMs));
        if (answered) resolve(answered);
        else reject(new TimeoutError(timeoutMs));
      }, timeoutMs);
      outgoing.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      outgoing.on('response', (response) => {
        answered = { statusCode: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] };
        const result = answered;
        let received = 0;
        const done = () => {
          clearTimeout(deadline);
          resolve(result);
        };
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) {
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', done);
      });
      outgoing.end(request.body);
    });
  }
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`No response within ${ms} ms.`);
  }
}

/** A short, merchant-safe description of why an attempt got no response. */
function describe(error: unknown): string {
  if (error instanceof BlockedAddressError) return 'The destination address is not allowed.';
  if (error instanceof TimeoutError) return error.message;
  const message = error instanceof Error ? error.message : '';
  if (/is not allowed/.test(message)) return 'The destination address is not allowed.';
  const code = (error as { code?: string }).code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused.';
    case 'ECONNRESET':
      return 'Connection reset.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'The host name could not be resolved.';
    case 'ETIMEDOUT':
      return 'The connection timed out.';
    default:
      return code?.startsWith('ERR_TLS') || code?.includes('CERT')
        ? 'TLS handshake failed.'
        : 'The request failed.';
  }
}
