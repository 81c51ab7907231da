import { describe, expect, it } from 'vitest';
import {
  admit,
  type EndpointHealth,
  endpointAnswered,
  endpointKey,
  endpointOf,
  ISOLATION,
  MIN_DEFER_MS,
  probePauseUntil,
} from '../../functions/domain/endpoint-health.ts';

const now = 1_000_000;
const noJitter = () => 0;
const health = (changes: Partial<EndpointHealth>): EndpointHealth => ({
  healthyUntil: 0,
  failures: 0,
  slots: [],
  ...changes,
});
/** A slot leased by an attempt that began `agoMs` before now. */
const leasedAgo = (agoMs: number) => now - agoMs + ISOLATION.slotLeaseMs;

describe('the endpoint of an event', () => {
  it('is one tenant’s origin: paths share it, other accounts and modes never do', () => {
    const own = endpointOf('acme', 'test', 'https://hooks.example.com/a?x=1');
    expect(endpointKey(own)).toBe(endpointKey(endpointOf('acme', 'test', 'https://HOOKS.example.com:443/b')));
    expect(endpointKey(own)).not.toBe(
      endpointKey(endpointOf('other', 'test', 'https://hooks.example.com/a')),
    );
    expect(endpointKey(own)).not.toBe(endpointKey(endpointOf('acme', 'live', 'https://hooks.example.com/a')));
    expect(endpointKey(own)).not.toBe(
      endpointKey(endpointOf('acme', 'test', 'https://hooks.example.com:8443/a')),
    );
  });
});

describe('admission of one more attempt', () => {
  it('lets attempts to a healthy endpoint go out freely, however many are under way', () => {
    const busy = health({ healthyUntil: now + 1, slots: [leasedAgo(100), leasedAgo(100)] });
    expect(admit(busy, now, noJitter)).toEqual({ kind: 'free' });
  });

  it('gives an endpoint that has not proven healthy its free slots, then none', () => {
    expect(admit(health({}), now, noJitter)).toEqual({ kind: 'slot', slot: 0 });
    expect(admit(health({ slots: [leasedAgo(100)] }), now, noJitter)).toEqual({ kind: 'slot', slot: 1 });
    expect(admit(health({ slots: [leasedAgo(100), leasedAgo(100)] }), now, noJitter).kind).toBe('defer');
  });

  it('takes back the slot of an attempt whose lease ended (its instance died)', () => {
    const expired = health({ slots: [now - 1, leasedAgo(100)] });
    expect(admit(expired, now, noJitter)).toEqual({ kind: 'slot', slot: 0 });
  });

  it('asks again at once while the slots’ attempts are young, soon while they may yet answer, else after the lease', () => {
    const fresh = admit(health({ slots: [leasedAgo(100), leasedAgo(50)] }), now, noJitter);
    expect(fresh).toEqual({
      kind: 'defer',
      waitMs: ISOLATION.slowAfterMs - 100,
      recheckInMs: ISOLATION.answerWithinMs - 100,
    });
    const young = admit(health({ slots: [leasedAgo(500), leasedAgo(700)] }), now, noJitter);
    expect(young).toEqual({ kind: 'defer', waitMs: ISOLATION.slowAfterMs - 700 });
    const slow = admit(health({ slots: [leasedAgo(9_000), leasedAgo(10_000)] }), now, noJitter);
    expect(slow).toEqual({ kind: 'defer', waitMs: ISOLATION.slotLeaseMs - 10_000 });
  });

  it('brings events held back behind young attempts back when those would count as slow, not up to the lease', () => {
    const young = admit(health({ slots: [leasedAgo(500), leasedAgo(700)] }), now, () => 0.99);
    const untilSlow = ISOLATION.slowAfterMs - 700;
    expect(young.kind === 'defer' && young.waitMs).toBeLessThanOrEqual(untilSlow * 1.2);
  });

  it('probes a failing endpoint with one attempt at a time and backs its events off', () => {
    const failing = health({ failures: ISOLATION.probeAfterFailures, slots: [0, 0] });
    expect(admit(failing, now, noJitter)).toEqual({ kind: 'slot', slot: 0 });
    const probing = health({ failures: ISOLATION.probeAfterFailures, slots: [leasedAgo(5_000), 0] });
    const deferral = admit(probing, now, noJitter);
    expect(deferral).toEqual({
      kind: 'defer',
      waitMs: ISOLATION.deferBaseMs * 2 ** (ISOLATION.probeAfterFailures - 1),
    });
    const longFailing = health({ failures: 40, slots: [leasedAgo(5_000)] });
    expect(admit(longFailing, now, noJitter)).toEqual({ kind: 'defer', waitMs: ISOLATION.deferMaxMs });
  });

  it('never defers for less than a queue delay, and spreads the waits', () => {
    const ending = health({ slots: [now + 10, now + 10] });
    expect(admit(ending, now, noJitter)).toEqual({ kind: 'defer', waitMs: MIN_DEFER_MS });
    const spread = admit(health({ slots: [leasedAgo(9_000), leasedAgo(9_000)] }), now, () => 0.99);
    expect(spread.kind === 'defer' && spread.waitMs).toBeGreaterThan(ISOLATION.slotLeaseMs - 9_000);
  });
});

describe('what an attempt says about its endpoint', () => {
  it('counts 5xx, 429 and no answer as unavailable, and any other answer as available', () => {
    const result = (status_code: number | null) => ({ status_code, duration_ms: 1, error: null });
    expect([200, 204, 302, 400, 404, 410].map((code) => endpointAnswered(result(code)))).toEqual(
      Array(6).fill(true),
    );
    expect([500, 503, 429, null].map((code) => endpointAnswered(result(code)))).toEqual(Array(4).fill(false));
  });
});

describe('a failing endpoint’s probe', () => {
  it('keeps its slot taken for the backoff after a failure, so events are held back without rechecks', () => {
    expect(probePauseUntil(ISOLATION.probeAfterFailures - 1, now)).toBeUndefined();
    const pause = probePauseUntil(ISOLATION.probeAfterFailures, now);
    expect(pause).toBe(
      now + ISOLATION.deferBaseMs * 2 ** (ISOLATION.probeAfterFailures - 1) + ISOLATION.slotLeaseMs,
    );
    const paused = health({ failures: ISOLATION.probeAfterFailures, slots: [pause ?? 0] });
    const admission = admit(paused, now, noJitter);
    expect(admission).toEqual({ kind: 'defer', waitMs: (pause ?? 0) - now });
    expect(admit(paused, (pause ?? 0) + 1, noJitter)).toEqual({ kind: 'slot', slot: 0 });
  });
});
