import { BoundedCache } from '../bounded-cache.ts';
import type { Mode } from '../domain/principal.ts';
import { isSubscriptionEvent, OUTBOX_GRACE_MS, ownWebhookUrl, type StoredEvent } from '../domain/webhook.ts';
import { endpointSecretContext, secretsInForce, subscribes } from '../domain/webhook-endpoint.ts';
import { logger } from '../logger.ts';
import type { EventQueue, EventReference } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';
import type { SigningSecretStore } from '../ports/signing-secret-store.ts';
import type { StoredWebhookEndpoint, WebhookEndpointRepository } from '../ports/webhook-endpoints.ts';

/*
 * Fan-out and destinations (docs/webhooks.md, "Fan-out to webhook endpoints"): whom an event goes to (its link's
 * `webhook_url` and the tenant's webhook endpoints that subscribe to it), where each delivery is sent and with
 * which secrets. The endpoints and secrets are read through caches built once per container by the composition
 * root (functions/dependencies.ts).
 */

/**
 * The tenant's webhook endpoints as delivery sees them: for a fan-out, as read since its batch began (after the
 * event was committed, so an endpoint created before the event gets it); for an attempt, as read within
 * `ENDPOINTS_CACHE_MS`; their secrets opened.
 */
export interface EndpointDirectory {
  /** Every endpoint of the tenant, as read at `readSince` (epoch ms) or later; by default within the cache time. */
  endpointsOf(account: string, mode: Mode, readSince?: number): Promise<StoredWebhookEndpoint[]>;
  /** The secrets a webhook to `endpoint` is signed with at `at`: the current one, and the previous during an overlap. */
  secretsOf(endpoint: StoredWebhookEndpoint, at: Date): Promise<string[]>;
}

/** How long an attempt trusts this container's copy of a tenant's endpoints (URL, status, secrets). */
export const ENDPOINTS_CACHE_MS = 1000;

/** Tenants (account, mode) whose endpoints, or signing secrets, a container remembers at most. */
export const TENANTS_CACHED = 1000;

/** Opened endpoint secrets a container remembers at most (16 endpoints a tenant, two secrets each in an overlap). */
export const ENDPOINT_SECRETS_CACHED = 1000;

/** The endpoints of each tenant, remembered for `ttlMs`, and their secrets opened once per sealed value. */
export function cachedEndpointDirectory(
  repository: Pick<WebhookEndpointRepository, 'list'>,
  cipher: Pick<SecretCipher, 'decrypt'>,
  now: () => Date,
  ttlMs = ENDPOINTS_CACHE_MS,
): EndpointDirectory {
  const endpoints = new BoundedCache<string, { list: Promise<StoredWebhookEndpoint[]>; at: number }>(
    TENANTS_CACHED,
  );
  const opened = new BoundedCache<string, Promise<string>>(ENDPOINT_SECRETS_CACHED);
  const open = (endpoint: StoredWebhookEndpoint, sealed: string) => {
    let secret = opened.get(sealed);
    if (!secret) {
      const opening = cipher.decrypt(sealed, endpointSecretContext(endpoint));
      opening.catch(() => opened.delete(sealed, opening));
      opened.set(sealed, opening);
      secret = opening;
    }
    return secret;
  };
  return {
    endpointsOf(account, mode, readSince = now().getTime() - ttlMs) {
      const key = `${account}#${mode}`;
      const cached = endpoints.get(key);
      if (cached && cached.at >= readSince) return cached.list;
      const list = repository.list(account, mode);
      const entry = { list, at: now().getTime() };
      endpoints.set(key, entry);
      list.catch(() => endpoints.delete(key, entry));
      return list;
    },
    async secretsOf(endpoint, at) {
      const { secret, previous_secret, previous_until } = endpoint.sealed;
      return secretsInForce(
        {
          secret: await open(endpoint, secret),
          previous_secret: previous_secret === undefined ? undefined : await open(endpoint, previous_secret),
          previous_until,
        },
        at,
      );
    },
  };
}

export type SigningSecrets = Pick<SigningSecretStore, 'getSigningSecrets'>;

/** How long a warm delivery function reuses an (account, mode)'s signing secrets before reading them again. */
export const SIGNING_SECRETS_CACHE_MS = 60_000;

/**
 * Signing secrets remembered per (account, mode) for `ttlMs`, so a busy delivery function reads them once a
 * minute rather than once per webhook; the records of one batch that need them together share one read. Safe
 * after a rotation: the previous secret keeps signing for 24 hours, so a minute of signing with it alone still
 * verifies at the merchant.
 */
export function cachedSigningSecrets(
  source: SigningSecrets,
  now: () => Date,
  ttlMs = SIGNING_SECRETS_CACHE_MS,
): SigningSecrets {
  const cache = new BoundedCache<string, { secrets: Promise<string[]>; until: number }>(TENANTS_CACHED);
  return {
    getSigningSecrets(account, mode, at) {
      const key = `${account}#${mode}`;
      const cached = cache.get(key);
      if (cached && cached.until > now().getTime()) return cached.secrets;
      const secrets = source.getSigningSecrets(account, mode, at);
      const entry = { secrets, until: now().getTime() + ttlMs };
      cache.set(key, entry);
      // A failed or empty read is not remembered: the next record asks the store again.
      const forget = () => cache.delete(key, entry);
      secrets.then((found) => {
        if (!found.length) forget();
      }, forget);
      return secrets;
    },
  };
}

export interface FanOutDependencies {
  events: EventRepository;
  /** The events queue: each new delivery's first message. */
  queue: EventQueue;
  /** The account-mode signing secrets, for the link's own `webhook_url`. */
  secrets: SigningSecrets;
  /** The merchants' webhook endpoints: whom an event fans out to, and where each delivery goes. */
  webhookEndpoints: EndpointDirectory;
  now: () => Date;
}

/**
 * Where the event goes: its link's `webhook_url`, signed with the account-mode's secret, or the endpoint of its
 * delivery, signed with that endpoint's secret(s). A string says why there is nowhere to send it.
 */
export type Destination = { url: string; secrets: (at: Date) => Promise<string[]> } | string;

export async function destinationOf(deps: FanOutDependencies, event: StoredEvent): Promise<Destination> {
  if (event.endpoint_id) {
    const endpoints = await deps.webhookEndpoints.endpointsOf(event.account, event.mode);
    const endpoint = endpoints.find((candidate) => candidate.id === event.endpoint_id);
    if (!endpoint) return 'The webhook endpoint was deleted: nothing was sent.';
    if (endpoint.status !== 'enabled') return 'The webhook endpoint is disabled: nothing was sent.';
    return { url: endpoint.url, secrets: (at) => deps.webhookEndpoints.secretsOf(endpoint, at) };
  }
  const url = ownWebhookUrl(event);
  if (!url) {
    return isSubscriptionEvent(event)
      ? 'The subscription link had no webhook_url: nothing was sent.'
      : 'The payment link has no webhook_url: nothing was sent.';
  }
  return { url, secrets: (at) => deps.secrets.getSigningSecrets(event.account, event.mode, at) };
}

/**
 * Hands the event to each enabled webhook endpoint of its tenant that subscribes to its type: a delivery item
 * each (born in the outbox, so none is lost if what follows fails) and its first message. Then the event notes
 * it is fanned out; until then every handling of its message does this again, creating only what is missing.
 * The endpoints are those read since `readSince` (epoch ms: when the batch began, after the event was committed).
 */
export async function fanOut(deps: FanOutDependencies, event: StoredEvent, readSince: number): Promise<void> {
  const endpoints = await deps.webhookEndpoints.endpointsOf(event.account, event.mode, readSince);
  const subscribed = endpoints.filter((endpoint) => subscribes(endpoint, event.type));
  if (!subscribed.length) return;
  const due = new Date(deps.now().getTime() + OUTBOX_GRACE_MS);
  const created = await deps.events.addDeliveries(
    event,
    subscribed.map((endpoint) => endpoint.id),
    due,
  );
  await Promise.all(
    created.map((endpointId) =>
      deps.queue.publish({ ...committedMessage(event, 0), endpoint_id: endpointId }).catch((error) =>
        logger.warn('Delivery left to the outbox sweeper: send failed', {
          event_id: event.id,
          endpoint_id: endpointId,
          error,
        }),
      ),
    ),
  );
}

/**
 * Reads the webhook endpoints of the batch's tenants whose events may need them (a fan-out, or a delivery to an
 * endpoint), one Query per tenant, so that the records find them read.
 */
export async function readBatchEndpoints(
  deps: Pick<FanOutDependencies, 'webhookEndpoints'>,
  events: Iterable<StoredEvent | undefined>,
  readSince: number,
): Promise<void> {
  const tenants = new Map<string, StoredEvent>();
  for (const event of events) {
    if (event?.status === 'pending' && (event.endpoint_id || !event.fanned_out)) {
      tenants.set(`${event.account}#${event.mode}`, event);
    }
  }
  await Promise.all(
    [...tenants.values()].map((event) =>
      deps.webhookEndpoints.endpointsOf(event.account, event.mode, readSince),
    ),
  );
}

/** The queue message of `event` for sequence `deliverySeq`: delivery read the event, so it is committed. */
export const committedMessage = (event: StoredEvent, deliverySeq: number): EventReference => ({
  id: event.id,
  account: event.account,
  mode: event.mode,
  delivery_seq: deliverySeq,
  committed: true,
  ...(event.endpoint_id && { endpoint_id: event.endpoint_id }),
});
