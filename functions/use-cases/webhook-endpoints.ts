import { generateWebhookSecret } from '../domain/api-key.ts';
import { InvalidStateError, NotFoundError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Principal } from '../domain/principal.ts';
import {
  type DeliveryAttempt,
  type EndpointEvent,
  type EventStatus,
  OUTBOX_GRACE_MS,
} from '../domain/webhook.ts';
import {
  ENDPOINT_SECRET_OVERLAP_MS,
  type EndpointInput,
  type EndpointStatus,
  endpointSecretContext,
  endpointSnapshot,
  MAX_WEBHOOK_ENDPOINTS,
  newWebhookEndpoint,
  normalisedEvents,
  TEST_LEASE_MS,
  type WebhookEndpoint,
} from '../domain/webhook-endpoint.ts';
import { logger } from '../logger.ts';
import type { EventQueue } from '../ports/event-queue.ts';
import type { EventRepository } from '../ports/event-repository.ts';
import type { SecretCipher } from '../ports/secret-cipher.ts';
import type { StoredWebhookEndpoint, WebhookEndpointRepository } from '../ports/webhook-endpoints.ts';

/*
 * Webhook endpoints as a resource (docs/webhooks.md#webhook-endpoints). The functions that create an endpoint or
 * rotate its secret seal the new secret (KMS `GenerateDataKey`) and show it once; none of them can open a stored
 * one: only the delivery function may (docs/security.md#webhook-signing-secrets).
 */

export interface EndpointDependencies {
  endpoints: WebhookEndpointRepository;
  now: () => Date;
}

export interface SealingDependencies extends EndpointDependencies {
  /** Seals new secrets; the functions holding it are granted encryption only. */
  cipher: Pick<SecretCipher, 'encrypt'>;
}

/** The endpoint without its sealed secrets: what every read returns. */
export function publicEndpoint(stored: StoredWebhookEndpoint): WebhookEndpoint {
  const { sealed: _sealed, stats: _stats, ...endpoint } = stored;
  return endpoint;
}

/** Creates an endpoint with a fresh signing secret, returned this once. At most 16 per account and mode. */
export async function createWebhookEndpoint(
  deps: SealingDependencies,
  principal: Principal,
  input: EndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const endpoint = newWebhookEndpoint(principal, input, deps.now());
  const secret = generateWebhookSecret();
  const sealed = { secret: await deps.cipher.encrypt(secret, endpointSecretContext(endpoint)) };
  if (!(await deps.endpoints.create(endpoint, sealed, MAX_WEBHOOK_ENDPOINTS))) {
    throw new InvalidStateError(
      `An account holds at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per mode: delete one first.`,
    );
  }
  return { endpoint, secret };
}

export async function listWebhookEndpoints(
  deps: EndpointDependencies,
  principal: Principal,
): Promise<StoredWebhookEndpoint[]> {
  return deps.endpoints.list(principal.account, principal.mode);
}

export async function getWebhookEndpoint(
  deps: EndpointDependencies,
  principal: Principal,
  id: string,
): Promise<StoredWebhookEndpoint> {
  const endpoint = await deps.endpoints.get(principal.account, principal.mode, id);
  if (!endpoint) throw new NotFoundError(`No webhook endpoint ${id}.`);
  return endpoint;
}

export interface EndpointUpdate {
  url?: string | undefined;
  enabled_events?: string[] | undefined;
  description?: string | null | undefined;
  status?: EndpointStatus | undefined;
}

export async function updateWebhookEndpoint(
  deps: EndpointDependencies,
  principal: Principal,
  id: string,
  update: EndpointUpdate,
): Promise<StoredWebhookEndpoint> {
  const updated = await deps.endpoints.update(principal.account, principal.mode, id, {
    ...update,
    ...(update.enabled_events && { enabled_events: normalisedEvents(update.enabled_events) }),
    updated_at: deps.now().toISOString(),
  });
  if (!updated) throw new NotFoundError(`No webhook endpoint ${id}.`);
  return updated;
}

export async function deleteWebhookEndpoint(
  deps: EndpointDependencies,
  principal: Principal,
  id: string,
): Promise<void> {
  if (!(await deps.endpoints.delete(principal.account, principal.mode, id))) {
    throw new NotFoundError(`No webhook endpoint ${id}.`);
  }
}

/**
 * Issues a new secret for the endpoint, returned this once. The previous one keeps signing too for 24 hours, so
 * every webhook of the overlap verifies with either.
 */
export async function rotateEndpointSecret(
  deps: SealingDependencies,
  principal: Principal,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string; previous_secret_expires_at: string }> {
  const existing = await getWebhookEndpoint(deps, principal, id);
  const secret = generateWebhookSecret();
  const previousUntil = new Date(deps.now().getTime() + ENDPOINT_SECRET_OVERLAP_MS);
  const rotated = await deps.endpoints.rotateSecret(
    principal.account,
    principal.mode,
    id,
    await deps.cipher.encrypt(secret, endpointSecretContext(existing)),
    previousUntil,
  );
  if (!rotated) throw new NotFoundError(`No webhook endpoint ${id}.`);
  return {
    endpoint: publicEndpoint(rotated),
    secret,
    previous_secret_expires_at: previousUntil.toISOString(),
  };
}

export interface TestEventDependencies extends EndpointDependencies {
  events: Pick<EventRepository, 'recordEndpointEvent' | 'get'>;
  queue: EventQueue;
  /** How long to wait for the attempt's outcome before answering without it. */
  waitMs: number;
  /** Pause between reads of the delivery while waiting. */
  pollMs?: number;
}

export interface TestEventOutcome {
  event_id: string;
  endpoint_id: string;
  /** The delivery's status: `pending` when no attempt was made in time, or after a failed one that will be retried. */
  status: EventStatus;
  /** The attempt, once made; null when it was not made within the wait. */
  attempt: DeliveryAttempt | null;
}

/**
 * Sends a signed `webhook_endpoint.test` event to the endpoint through the delivery pipeline (the same queue,
 * isolation, signing and attempts log as every webhook), and waits up to `waitMs` for its first attempt. One
 * test runs per endpoint at a time: each holds a function for its wait, so repeated calls must not add up.
 */
export async function sendTestEvent(
  deps: TestEventDependencies,
  principal: Principal,
  id: string,
): Promise<TestEventOutcome> {
  const endpoint = await getWebhookEndpoint(deps, principal, id);
  if (endpoint.status !== 'enabled') {
    throw new InvalidStateError('The webhook endpoint is disabled: enable it to test it.');
  }
  const now = deps.now();
  const leaseUntil = new Date(now.getTime() + TEST_LEASE_MS);
  if (!(await deps.endpoints.claimTest(principal.account, principal.mode, endpoint.id, now, leaseUntil))) {
    throw new InvalidStateError(
      'A test of this webhook endpoint is already under way: send the next one once it has answered.',
    );
  }
  try {
    return await testEndpoint(deps, principal, endpoint, now);
  } finally {
    // A release that fails leaves the lease to lapse: the endpoint can be tested again after TEST_LEASE_MS.
    await deps.endpoints
      .releaseTest(principal.account, principal.mode, endpoint.id, leaseUntil)
      .catch((error) => logger.warn('Webhook endpoint test lease not released', { endpoint_id: id, error }));
  }
}

async function testEndpoint(
  deps: TestEventDependencies,
  principal: Principal,
  endpoint: StoredWebhookEndpoint,
  now: Date,
): Promise<TestEventOutcome> {
  const event: EndpointEvent = {
    id: newId('evt'),
    type: 'webhook_endpoint.test',
    account: principal.account,
    mode: principal.mode,
    created_at: now.toISOString(),
    data: endpointSnapshot(publicEndpoint(endpoint)),
  };
  await deps.events.recordEndpointEvent(event, [endpoint.id], new Date(now.getTime() + OUTBOX_GRACE_MS));
  // A lost send only delays the test: the delivery is in the outbox, which the sweeper hands over.
  await deps.queue
    .publish({ ...event, delivery_seq: 0, committed: true, endpoint_id: endpoint.id })
    .catch(() => undefined);
  const deadline = Date.now() + deps.waitMs;
  for (;;) {
    const delivery = await deps.events.get(event.id, event.mode, endpoint.id);
    const attempt = delivery?.attempts.at(-1) ?? null;
    if (delivery && (attempt || Date.now() >= deadline)) {
      return { event_id: event.id, endpoint_id: endpoint.id, status: delivery.status, attempt };
    }
    if (Date.now() >= deadline) {
      return { event_id: event.id, endpoint_id: endpoint.id, status: 'pending', attempt: null };
    }
    await new Promise((resolve) => setTimeout(resolve, deps.pollMs ?? 250));
  }
}
