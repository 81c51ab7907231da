import type { Mode } from './principal.ts';
import { type AttemptResult, MAX_QUEUE_DELAY_MS, RETRY_JITTER, WEBHOOK_TIMEOUT_MS } from './webhook.ts';

/**
 * Delivery isolation (docs/webhooks.md, "Isolation"), pure: which endpoint an event goes to, what its shared
 * health allows, and how long an event waits when the endpoint may not take another attempt. The delivery use
 * case (functions/use-cases/endpoint-isolation.ts) applies these rules; the health itself is stored by the
 * endpoint-health port, shared by every function instance.
 */

/**
 * The unit of isolation: one tenant's (account and mode) endpoint, by origin (scheme, host, port). Two accounts
 * posting to the same host never share state; one account's links posting to different paths of one server do,
 * since they load the same server.
 */
export interface EndpointRef {
  account: string;
  mode: Mode;
  origin: string;
}

export function endpointOf(account: string, mode: Mode, url: string): EndpointRef {
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    origin = url;
  }
  return { account, mode, origin };
}

export const endpointKey = (endpoint: EndpointRef) =>
  `${endpoint.account}#${endpoint.mode}#${endpoint.origin}`;

/**
 * What every instance knows about an endpoint. `healthyUntil`: it answered recently, so attempts go out freely
 * until then. `failures`: attempts in a row that got no usable answer (no response, connection errors, 5xx,
 * 429). `slots`: the lease expiry (epoch ms) of each attempt under way to an endpoint that is not healthy, 0
 * when free; a lease outlives the attempt's timeout, so an instance that died frees its slot on its own.
 */
export interface EndpointHealth {
  healthyUntil: number;
  failures: number;
  slots: readonly number[];
}

export const UNKNOWN_ENDPOINT: EndpointHealth = { healthyUntil: 0, failures: 0, slots: [] };

export interface IsolationSettings {
  /** Attempts at most under way at once, across all instances, to an endpoint that is not healthy. */
  slots: number;
  /** After this many failures in a row, a single attempt at a time probes the endpoint (half-open). */
  probeAfterFailures: number;
  /** How long an answer vouches for an endpoint. */
  healthyForMs: number;
  /** A healthy endpoint with an attempt unanswered for this long is treated as unproven again. */
  slowAfterMs: number;
  /** How long a slot is held at most: the attempt's timeout plus room to record it. */
  slotLeaseMs: number;
  /** The first wait of an event held back from a failing endpoint; it doubles with each failure in a row. */
  deferBaseMs: number;
  /** The longest wait of a held-back event: once the endpoint recovers, its events follow within this. */
  deferMaxMs: number;
  /** How long an instance trusts the health it read. */
  cacheMs: number;
  /** How long a record waits for this instance's own attempt to the endpoint to answer before it is deferred. */
  localWaitMs: number;
  /**
   * A healthy endpoint's usual answer time: a record finding the slots taken by attempts younger than this
   * (elsewhere) waits for them to reach this age and asks again, rather than being deferred at once.
   */
  answerWithinMs: number;
}

export const ISOLATION: IsolationSettings = {
  slots: 2,
  probeAfterFailures: 5,
  healthyForMs: 10 * 60_000,
  slowAfterMs: 2_000,
  slotLeaseMs: WEBHOOK_TIMEOUT_MS + 5_000,
  deferBaseMs: 5_000,
  deferMaxMs: MAX_QUEUE_DELAY_MS,
  cacheMs: 1_000,
  localWaitMs: 1_000,
  answerWithinMs: 250,
};

/** The shortest wait of a held-back event: the smallest delay a queue message can have. */
export const MIN_DEFER_MS = 1_000;

/** What an endpoint's health allows for one more attempt. */
export type Admission =
  | { kind: 'free' }
  | { kind: 'slot'; slot: number }
  /** `recheckInMs`: a slot's attempt began moments ago and may be answered soon: worth asking again then. */
  | { kind: 'defer'; waitMs: number; recheckInMs?: number };

/**
 * A healthy endpoint takes attempts freely. Otherwise an attempt needs a free slot (one only, the probe, after
 * `probeAfterFailures` failures in a row); without one the event waits until a slot's lease ends, at least
 * the backoff of the failures so far, with jitter so that held-back events do not all return at once.
 */
export function admit(
  health: EndpointHealth,
  now: number,
  random: () => number,
  settings: IsolationSettings = ISOLATION,
): Admission {
  if (health.healthyUntil > now) return { kind: 'free' };
  const usable = health.failures >= settings.probeAfterFailures ? 1 : settings.slots;
  // When the slots' attempts should end: a young one may be answered at once (an endpoint proving itself), so
  // its events look again when it would count as slow, by which time every instance knows whether it answered;
  // one already slow is likely to hold its slot until its lease ends. A lease that begins in the future is a
  // failed probe's pause (`probePauseUntil`).
  let freeAt = Number.POSITIVE_INFINITY;
  let recheckAt = Number.POSITIVE_INFINITY;
  for (let slot = 0; slot < usable; slot++) {
    const lease = health.slots[slot] ?? 0;
    if (lease <= now) return { kind: 'slot', slot };
    const began = lease - settings.slotLeaseMs;
    const slowAt = began + settings.slowAfterMs;
    // Not later: an endpoint that answered its first attempts in a second must not have the rest of its burst
    // held for up to the whole lease. If the attempt turns out to hang, its events are held back again then,
    // until the lease ends (jittered below, so they come back a few at a time).
    const young = began <= now && slowAt > now;
    freeAt = Math.min(freeAt, young ? slowAt : lease);
    if (began <= now && began + settings.answerWithinMs > now) {
      recheckAt = Math.min(recheckAt, began + settings.answerWithinMs);
    }
  }
  const wait = Math.min(
    settings.deferMaxMs,
    Math.max(freeAt - now, backoffMs(health.failures, settings), MIN_DEFER_MS),
  );
  const waitMs = Math.round(wait * (1 + RETRY_JITTER * random()));
  return recheckAt === Number.POSITIVE_INFINITY
    ? { kind: 'defer', waitMs }
    : { kind: 'defer', waitMs, recheckInMs: recheckAt - now };
}

/** The least wait of events held back from an endpoint after `failures` failures in a row. */
function backoffMs(failures: number, settings: IsolationSettings): number {
  return failures ? Math.min(settings.deferMaxMs, settings.deferBaseMs * 2 ** Math.min(failures - 1, 20)) : 0;
}

/**
 * After a failed attempt that leaves the endpoint failing `failures` times in a row: when probing with one
 * attempt at a time, the slot stays taken until the backoff ends (undefined: freed at once). A permanently
 * hanging endpoint so holds one record of one batch for one timeout per backoff, not continuously.
 */
export function probePauseUntil(
  failures: number,
  now: number,
  settings: IsolationSettings = ISOLATION,
): number | undefined {
  if (failures < settings.probeAfterFailures) return undefined;
  return now + backoffMs(failures, settings) + settings.slotLeaseMs;
}

/**
 * Whether an attempt says the endpoint is available: any HTTP answer but 5xx and 429. A 4xx or a redirect is the
 * merchant's answer about one event (retried on that event's schedule), not a sign that the server is down.
 */
export function endpointAnswered(result: AttemptResult): boolean {
  const code = result.status_code;
  return code !== null && code < 500 && code !== 429;
}

/** Whether an answered attempt should renew the endpoint's health (it is not healthy, or soon no longer). */
export function needsRenewal(health: EndpointHealth, now: number, settings: IsolationSettings = ISOLATION) {
  return health.failures > 0 || health.healthyUntil - now < settings.healthyForMs / 2;
}
