import { createHmac, type KeyObject } from 'node:crypto';
import { IdempotencyKeyReusedError, ValidationError } from '../domain/errors.ts';
import { idFromBytes } from '../domain/ids.ts';
import {
  asCreated,
  newPaymentLink,
  type PaymentLink,
  type PaymentLinkInput,
} from '../domain/payment-link.ts';
import type { Principal } from '../domain/principal.ts';
import { putMetrics } from '../metrics.ts';
import type { IdempotencyScope } from '../ports/idempotency-store.ts';
import type { LinkRepository } from '../ports/link-repository.ts';
import { IDEMPOTENCY_KEY_TTL_HOURS } from './idempotency.ts';

export interface KeyedCreateDependencies {
  links: LinkRepository;
  now: () => Date;
  /** The HMAC key of keyed links' ids (`LINK_ID_SECRET`, docs/security.md#link-ids), made a key object once. */
  linkIdSecret: KeyObject;
}

/** A request's `Idempotency-Key` and fingerprint (method, path and canonical body: functions/http/api/idempotency.ts). */
export interface KeyedRequest {
  key: string;
  fingerprint: string;
}

/**
 * A key used again after its 24 hours names a new link (the next generation of its ids); after this many the
 * request is refused as a reused key, so a lookup never walks far.
 */
export const MAX_KEY_GENERATIONS = 16;

/**
 * The id of the link that the `generation`th use of `key` creates: an HMAC of the tenant, the key and the
 * generation, so that a retry names the same link, and nobody without the secret can tell a link's id from a
 * key they guess (every public id has at least 128 bits nobody can predict: docs/decisions.md#ids).
 */
export function keyedLinkId(secret: KeyObject, scope: IdempotencyScope, generation: number): string {
  const digest = createHmac('sha256', secret)
    .update(JSON.stringify(['payment_link', scope.account, scope.mode, scope.key, generation]))
    .digest();
  return idFromBytes('pl', digest);
}

/** A key holds its link 24 hours from the link's creation, as it holds any response (docs/api.md#idempotency). */
const holdsKey = (link: PaymentLink, now: Date) =>
  Date.parse(link.created_at) + IDEMPOTENCY_KEY_TTL_HOURS * 3_600_000 > now.getTime();

/** What a retry of the request that created `held` answers: that link as created; another request is refused. */
function replayOf(held: PaymentLink, fingerprint: string): { link: PaymentLink; replayed: true } {
  if (held.request_hash !== fingerprint) throw new IdempotencyKeyReusedError();
  return { link: asCreated(held), replayed: true };
}

/**
 * `POST /v1/payment-links` with an `Idempotency-Key` is one conditional write: the link's own `PutItem`, under an
 * id derived from the key (`keyedLinkId`), holds the key, and stores the request's fingerprint. A retry, or a
 * concurrent duplicate, loses that write and finds the link: the same request replays it as created (`asCreated`),
 * another is `idempotency_key_reused`. There is no in-progress state to wait on, and nothing to complete or free
 * after the write (docs/data-model.md#keyed-creates). `parse` validates the body: a body refused now (an
 * `expires_at` that has passed since) that created its link before is replayed too.
 */
export async function createKeyedLink(
  deps: KeyedCreateDependencies,
  principal: Principal,
  parse: () => PaymentLinkInput,
  request: KeyedRequest,
): Promise<{ link: PaymentLink; replayed: boolean }> {
  const scope = { ...principal, key: request.key };
  let input: PaymentLinkInput;
  try {
    input = parse();
  } catch (error) {
    const held = error instanceof ValidationError ? await linkOfKey(deps, scope) : undefined;
    if (!held) throw error;
    return replayOf(held, request.fingerprint);
  }
  for (let generation = 0; generation < MAX_KEY_GENERATIONS; generation++) {
    const now = deps.now();
    const id = keyedLinkId(deps.linkIdSecret, scope, generation);
    const link = newPaymentLink(principal, input, now, { id, request_hash: request.fingerprint });
    const held = await deps.links.create(link);
    if (!held) {
      putMetrics({ LinksCreated: 1 });
      return { link, replayed: false };
    }
    if (holdsKey(held, now)) return replayOf(held, request.fingerprint);
  }
  throw new IdempotencyKeyReusedError();
}

/** The link a create made with this key within the key's 24 hours, if any. */
export async function linkOfKey(
  deps: KeyedCreateDependencies,
  scope: IdempotencyScope,
): Promise<PaymentLink | undefined> {
  for (let generation = 0; generation < MAX_KEY_GENERATIONS; generation++) {
    const link = await deps.links.get(keyedLinkId(deps.linkIdSecret, scope, generation), scope.mode);
    if (!link || link.account !== scope.account) return undefined;
    if (holdsKey(link, deps.now())) return link;
  }
  return undefined;
}
