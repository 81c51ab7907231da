import { BoundedCache } from '../bounded-cache.ts';
import {
  type Admission,
  admit,
  type EndpointHealth,
  type EndpointRef,
  endpointAnswered,
  endpointKey,
  ISOLATION,
  type IsolationSettings,
  needsRenewal,
  probePauseUntil,
} from '../domain/endpoint-health.ts';
import type { AttemptResult } from '../domain/webhook.ts';
import { logger } from '../logger.ts';
import type { EndpointHealthStore } from '../ports/endpoint-health.ts';
import type { Invocation } from './webhook-invocation.ts';

/*
 * Isolation (docs/webhooks.md, "Isolation"): an endpoint that has not proven healthy takes at most a few
 * attempts at once across all instances (slots leased in its shared health item), so a hanging endpoint holds
 * at most that many records, and its other events are deferred instead of filling every batch. The rules are
 * pure functions of functions/domain/endpoint-health.ts; this applies them around each attempt.
 */

/** What this container knows of endpoints' health, beyond the shared store. One per container. */
export interface EndpointHealthCache {
  /** What this container last read or wrote of each endpoint's health, and when (epoch ms). */
  known: BoundedCache<string, { health: EndpointHealth; at: number }>;
  /** Reads of endpoint health under way, so records needing the same one share it. */
  reads: Map<string, Promise<EndpointHealth>>;
}

/** Endpoints whose health a container remembers at most; a forgotten one is read again (one `GetItem`). */
export const ENDPOINT_HEALTH_CACHE_SIZE = 10_000;

export const newEndpointHealthCache = (maxSize = ENDPOINT_HEALTH_CACHE_SIZE): EndpointHealthCache => ({
  known: new BoundedCache(maxSize),
  reads: new Map(),
});

export interface IsolationDependencies {
  /** The shared health of merchants' endpoints, which keeps one tenant's failing endpoint from holding others. */
  endpoints: EndpointHealthStore;
  /** This container's copy of that health (built once per container by functions/dependencies.ts). */
  endpointHealth: EndpointHealthCache;
  /** Isolation settings; the domain's unless a test compresses them. */
  isolation?: IsolationSettings;
  now: () => Date;
  random: () => number;
}

export type Admitted = { kind: 'free' } | { kind: 'slot'; slot: number; lease: number };
export type Deferral = { kind: 'defer'; waitMs: number; recheckInMs?: number };

const settingsOf = (deps: IsolationDependencies) => deps.isolation ?? ISOLATION;

function remember(deps: IsolationDependencies, endpoint: EndpointRef, health: EndpointHealth, at: number) {
  deps.endpointHealth.known.set(endpointKey(endpoint), { health, at });
}

/**
 * Reads the health of the batch's endpoints that this container has not read within `cacheMs`, with one request,
 * so that its records decide from the cache.
 */
export async function readHealthOf(
  deps: IsolationDependencies,
  endpoints: Iterable<EndpointRef>,
): Promise<void> {
  const now = deps.now().getTime();
  const stale = new Map<string, EndpointRef>();
  for (const endpoint of endpoints) {
    const cached = deps.endpointHealth.known.get(endpointKey(endpoint));
    if (!cached || now - cached.at >= settingsOf(deps).cacheMs) stale.set(endpointKey(endpoint), endpoint);
  }
  if (!stale.size) return;
  const refs = [...stale.values()];
  const healths = await deps.endpoints.getMany(refs);
  refs.forEach((endpoint, index) => {
    const health = healths[index];
    if (health) remember(deps, endpoint, health, now);
  });
}

/** The endpoint's health as known at `notBefore` or later (by default: within `cacheMs`). */
async function currentHealth(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  notBefore = deps.now().getTime() - settingsOf(deps).cacheMs,
): Promise<EndpointHealth> {
  const key = endpointKey(endpoint);
  const cached = deps.endpointHealth.known.get(key);
  if (cached && cached.at >= notBefore && deps.now().getTime() - cached.at < settingsOf(deps).cacheMs) {
    return cached.health;
  }
  const { reads } = deps.endpointHealth;
  const pending = reads.get(key);
  if (pending) return pending;
  const startedAt = deps.now().getTime();
  const read = deps.endpoints
    .getMany([endpoint])
    .then(([health]) => {
      if (!health) throw new Error('The endpoint health store answered nothing.');
      remember(deps, endpoint, health, startedAt);
      return health;
    })
    .finally(() => reads.delete(key));
  reads.set(key, read);
  return read;
}

/**
 * Whether this event may be attempted now, taking a slot when the endpoint needs one. A record that finds no
 * slot waits once and asks again when an answer may be near: for this invocation's own attempt to the
 * endpoint (at most `localWaitMs`), or for another instance's begun less than `answerWithinMs` ago. A healthy
 * endpoint seen for the first time so proves itself within the batch instead of having its events deferred;
 * a hanging one costs a batch such a wait only in the first moments of its first attempts.
 */
export async function admitAttempt(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  invocation: Invocation,
): Promise<Admitted | Deferral> {
  const first = await decideInTurn(deps, endpoint, invocation);
  if (first.kind !== 'defer') return first;
  const settings = settingsOf(deps);
  const own = invocation.attempts.get(endpointKey(endpoint)) ?? [];
  if (!own.length && first.recheckInMs === undefined) return first;
  const waitMs = own.length ? settings.localWaitMs : (first.recheckInMs ?? 0);
  const waitedFrom = deps.now().getTime() + waitMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    ...(own.length ? [Promise.all(own)] : []),
    new Promise((resolve) => {
      timer = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timer);
  // Another instance's answer is only in the store: read it (once for all the records that waited).
  const second = await decideInTurn(deps, endpoint, invocation, own.length ? undefined : waitedFrom);
  return second.kind === 'defer' ? { kind: 'defer', waitMs: second.waitMs } : second;
}

/** One admission decision, after the previous one for the same endpoint in this invocation. */
function decideInTurn(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  invocation: Invocation,
  notBefore?: number,
): Promise<Admitted | Deferral> {
  const key = endpointKey(endpoint);
  const decision = (invocation.admissions.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => decide(deps, endpoint, notBefore));
  invocation.admissions.set(key, decision);
  return decision;
}

async function decide(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  notBefore?: number,
): Promise<Admitted | Deferral> {
  const settings = settingsOf(deps);
  const health = await currentHealth(deps, endpoint, notBefore);
  let admission: Admission = admit(health, deps.now().getTime(), deps.random, settings);
  // A slot another instance took since the health was read: read again and decide once more.
  for (let round = 0; admission.kind === 'slot' && round < 2; round++) {
    const now = deps.now().getTime();
    const lease = now + settings.slotLeaseMs;
    const claimed = await deps.endpoints.claimSlot(endpoint, admission.slot, lease, now);
    if (claimed) {
      remember(deps, endpoint, claimed, now);
      return { kind: 'slot', slot: admission.slot, lease };
    }
    admission = admit(await currentHealth(deps, endpoint, now), now, deps.random, settings);
  }
  if (admission.kind === 'slot') return { kind: 'defer', waitMs: settings.deferBaseMs };
  return admission;
}

/**
 * Notes an attempt to `endpoint` under way in this invocation, for its other records that wait for its answer
 * (`admitAttempt`); call the function returned once the answer is recorded.
 */
export function trackAttempt(invocation: Invocation, endpoint: EndpointRef): () => void {
  let settled: () => void = () => undefined;
  const key = endpointKey(endpoint);
  invocation.attempts.set(key, [
    ...(invocation.attempts.get(key) ?? []),
    new Promise<void>((resolve) => {
      settled = resolve;
    }),
  ]);
  return settled;
}

/**
 * Sends, and for an endpoint trusted as healthy watches the clock: an attempt unanswered for `slowAfterMs` ends
 * that trust at once, so every instance holds the endpoint to its slots before its attempts could fill batches.
 * That write is awaited before the attempt's verdict is recorded, so it never lands after it.
 */
export async function watchedSend(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  admission: Admitted,
  send: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  if (admission.kind !== 'free') return send();
  let marking: Promise<unknown> | undefined;
  const slow = setTimeout(() => {
    marking = deps.endpoints.markSlow(endpoint).then(
      (health) => health && remember(deps, endpoint, health, deps.now().getTime()),
      (error) => logger.warn('Endpoint health not updated', { origin: endpoint.origin, error }),
    );
  }, settingsOf(deps).slowAfterMs);
  try {
    return await send();
  } finally {
    clearTimeout(slow);
    await marking;
  }
}

/**
 * Records what the attempt says about its endpoint and frees its slot. An answer from an endpoint already
 * trusted writes nothing (until its trust is half spent), so healthy delivery costs no extra write. A failure to
 * write is only logged: the slot's lease ends on its own, and the event's own state is recorded apart.
 */
export async function recordEndpointAnswer(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  admission: Admitted,
  result: AttemptResult,
): Promise<void> {
  const settings = settingsOf(deps);
  const now = deps.now().getTime();
  const answered = endpointAnswered(result);
  const known = deps.endpointHealth.known.get(endpointKey(endpoint))?.health;
  if (admission.kind === 'free' && answered && known && !needsRenewal(known, now, settings)) return;
  try {
    const pauseUntil = answered ? undefined : probePauseUntil((known?.failures ?? 0) + 1, now, settings);
    const health = await deps.endpoints.recordAnswer(
      endpoint,
      answered,
      now + settings.healthyForMs,
      admission.kind === 'slot' ? { ...admission, pauseUntil } : undefined,
    );
    remember(deps, endpoint, health, now);
  } catch (error) {
    logger.warn('Endpoint health not updated', { origin: endpoint.origin, error });
  }
}

/** Frees a slot whose attempt could not be made (store or secret unavailable): no verdict on the endpoint. */
export async function releaseSlot(
  deps: IsolationDependencies,
  endpoint: EndpointRef,
  admission: Admitted,
): Promise<void> {
  if (admission.kind !== 'slot') return;
  deps.endpointHealth.known.delete(endpointKey(endpoint));
  await deps.endpoints
    .claimSlot(endpoint, admission.slot, 0, admission.lease)
    .catch((error) => logger.warn('Endpoint slot not freed', { origin: endpoint.origin, error }));
}
