import { lookup as systemLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { isPublicAddress } from '../../domain/urls.ts';
import { type AttemptResult, parseRetryAfter, WEBHOOK_TIMEOUT_MS } from '../../domain/webhook.ts';
import type { WebhookRequest, WebhookSender } from '../../ports/webhook-sender.ts';

export interface HttpWebhookSenderOptions {
  /**
   * Loopback and private destinations for test-mode events: only where the deployment allows them (the local
   * stack). Live events are held to public addresses in every deployment.
   */
  allowPrivateTargets: boolean;
  /** Deadline of the whole attempt, connect to last response byte; 15 s unless a test shortens it. */
  timeoutMs?: number;
  /** Name resolution (tests point names at chosen addresses); the system resolver by default. */
  lookup?: LookupFunction;
}

/** Bytes of a response body read before the connection is dropped: only the status matters. */
const MAX_RESPONSE_BYTES = 64 * 1024;

class BlockedAddressError extends Error {}

/** How writing to a kept-alive connection fails when the server closed it while it sat idle. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** How long a kept-alive connection may sit idle in the pool. */
const IDLE_SOCKET_MS = 4_000;

/**
 * Webhook POSTs over node:http(s), with connections kept alive between attempts to the same host: a busy
 * endpoint is not paid a TCP and TLS handshake per event. SSRF defence at connect time: the
 * request-filtering agents check the address the socket is about to connect to, after resolution (so DNS
 * rebinding between a check and the connect is impossible); IP literals are refused before any socket opens.
 * Redirects are never followed (node:http does not) and count as failures.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly options: HttpWebhookSenderOptions;
  /** Agents that connect to public addresses only; and, where the deployment allows, ones that connect anywhere. */
  private readonly publicAgents: Agents;
  private readonly anyAgents: Agents | undefined;
  /** Name resolution for the public agents: the family-specific deny rules applied to its answers. */
  private readonly publicLookup: LookupFunction;

  constructor(options: HttpWebhookSenderOptions) {
    this.options = options;
    this.publicAgents = filteringAgents(false);
    this.anyAgents = options.allowPrivateTargets ? filteringAgents(true) : undefined;
    this.publicLookup = screenedLookup(options.lookup ?? (systemLookup as LookupFunction));
  }

  private get timeoutMs(): number {
    return this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  async send(request: WebhookRequest): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(request.url);
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new BlockedAddressError();
      const agents = (request.mode === 'test' && this.anyAgents) || this.publicAgents;
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (agents === this.publicAgents && ipaddr.isValid(host) && !isPublicAddress(host)) {
        throw new BlockedAddressError();
      }
      const timeoutMs = Math.min(request.timeoutMs ?? Number.POSITIVE_INFINITY, this.timeoutMs);
      const response = await this.post(url, request, agents, started, timeoutMs);
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

  /**
   * One POST that ends `timeoutMs` after `started` (a `performance.now()` time), with the status if one arrived
   * by then; sent a second time at most, when the kept-alive connection it went out on turns out to be closed.
   */
  private post(
    url: URL,
    request: WebhookRequest,
    agents: Agents,
    started: number,
    timeoutMs: number,
    resent = false,
  ): Promise<{ statusCode: number; retryAfter?: string }> {
    const deadline = started + timeoutMs;
    const client = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? agents.https : agents.http;
    return new Promise((resolve, reject) => {
      const outgoing = client.request(url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': Buffer.byteLength(request.body) },
        ...(agents === this.publicAgents
          ? { lookup: this.publicLookup }
          : this.options.lookup && { lookup: this.options.lookup }),
      });
      let answered: { statusCode: number; retryAfter?: string } | undefined;
      const timer = setTimeout(
        () => {
          // Whatever state the exchange is in, the attempt ends now: with the status if one arrived.
          outgoing.destroy(new TimeoutError(timeoutMs));
          if (answered) resolve(answered);
          else reject(new TimeoutError(timeoutMs));
        },
        Math.max(0, deadline - performance.now()),
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        // A kept-alive connection the server closed while it sat idle (or while the Lambda instance was frozen):
        // its idle siblings are likely closed too, so they are dropped and the attempt goes on, once, over a new
        // connection. Should the server have read the request before resetting, the merchant gets it twice with
        // the same webhook-id, which at-least-once delivery allows.
        const stale = outgoing.reusedSocket && !answered && STALE_CONNECTION_CODES.has(error.code ?? '');
        if (stale && !resent && performance.now() < deadline) {
          dropIdleSockets(agent);
          resolve(this.post(url, request, agents, started, timeoutMs, true));
        } else {
          reject(error);
        }
      });
      outgoing.on('response', (response) => {
        answered = { statusCode: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] };
        const result = answered;
        let received = 0;
        const done = () => {
          clearTimeout(timer);
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

/** Closes the agent's idle kept-alive connections, so that the next request opens a new one. */
function dropIdleSockets(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

/**
 * Whether a resolved answer is one the public agents must not connect to: the same rule as an IP literal in the
 * URL (`isPublicAddress`), which also covers the IPv4-compatible `::a.b.c.d` form that ipaddr.js calls unicast.
 * Not the agent's `denyIPAddressList`: the agent matches each entry against every answer, and an IPv6 range
 * cannot match an IPv4 address, so it logged "Invalid CIDR" with a stack trace (about 1.3 KB) for every new
 * connection to an IPv4 endpoint.
 */
const denied = (address: string): boolean => ipaddr.isValid(address) && !isPublicAddress(address);

/**
 * `lookup` with every answer screened (`denied`): a name with any denied answer fails to resolve. The filtering
 * agent then checks the same answers against its ranges, and the socket connects to one of them, so no check can
 * be raced by a second resolution.
 */
function screenedLookup(lookup: LookupFunction): LookupFunction {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    lookup(hostname, options, ((error: Error | null, answer: unknown, family?: number) => {
      if (error) return callback(error);
      const addresses = Array.isArray(answer)
        ? (answer as { address: string }[]).map((entry) => entry.address)
        : [answer as string];
      const refused = addresses.find(denied);
      if (refused !== undefined) {
        return callback(new Error(`DNS lookup ${refused} (host: ${hostname}) is not allowed.`));
      }
      return Array.isArray(answer) ? callback(null, answer) : callback(null, answer, family);
    }) as Parameters<LookupFunction>[2]);
  }) as LookupFunction;
}

function filteringAgents(allowPrivateTargets: boolean): Agents {
  const filter = {
    allowPrivateIPAddress: allowPrivateTargets,
    allowMetaIPAddress: allowPrivateTargets,
    keepAlive: true,
    // Idle sockets close before the common 5 s server keep-alive timeout, so reuse rarely meets a closed one,
    // and a long-lived instance does not hold sockets to every host it ever posted to.
    timeout: IDLE_SOCKET_MS,
    // No cap on idle sockets per host beyond Node's: a Lambda instance posts at most one batch (10) at once, so
    // that is all its pool ever holds; the local stack's invocations share one process and its pool, and a cap
    // of 10 there closed most connections after each burst and opened new ones for the next.
  };
  return { http: new RequestFilteringHttpAgent(filter), https: new RequestFilteringHttpsAgent(filter) };
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
