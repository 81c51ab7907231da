import { generateWebhookSecret } from '../domain/api-key.ts';
import { InvalidStateError, NotFoundError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import {
  ENDPOINT_SECRET_OVERLAP_MS,
  type EndpointInput,
  type EndpointStatus,
  endpointSecretContext,
  MAX_WEBHOOK_ENDPOINTS,
  newWebhookEndpoint,
  normalisedEvents,
  type WebhookEndpoint,
} from '../domain/webhook-endpoint.ts';
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
  const { sealed: _sealed, ...endpoint } = stored;
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
