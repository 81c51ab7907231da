import { parseSegmentKey, segmentKey } from '../../domain/outcomes.ts';
import type { RoutingDecision, TriedAttempt } from '../../domain/routing-decision.ts';
import { type CandidateEstimate, OPTIMIZE_GOALS } from '../../domain/strategies.ts';
import {
  arrayOf,
  type Decoder,
  lazy,
  literal,
  mismatch,
  nullable,
  number,
  objectOf,
  oneOf,
  optional,
  string,
} from './item-decoder.ts';

/**
 * A payment's routing decision as the table keeps it: what every payment carries is stored small (the segment
 * as its key, defaults left out, `chosen` being the payment's own connection), since the payment item's bytes
 * are paid for each link's life long (docs/performance.md#cost-per-million-links).
 */
export interface StoredRouting {
  /** Strategy. */
  s: RoutingDecision['strategy'];
  /** Segment key (`segmentKey`). */
  g: string;
  /** Rule name, when a rule matched. */
  r?: string;
  /**
   * Candidates: an id alone when nothing was known of it, else [id, paid share, sessions, fee, eliminated], with a
   * sixth element 1 when the fee was learned from reported fees (2026-11-30, issue 50; absent: from the fee lines).
   */
  c?: StoredCandidate[];
  x?: 1;
  v?: 1;
  /** Held out (2026-11-30, issue 50): absent on every decision before holdouts and on every learned one. */
  h?: 1;
  /**
   * The attempts of the opening before this one (`tried`), as [connection, payment, 1 when refused else 0];
   * absent on a first attempt and on decisions recorded before failover attempts were named (issue 50).
   */
  t?: StoredTried[];
  /** The declined payment a recovery recovers (`recovers`); absent otherwise and on older recoveries. */
  d?: string;
}

type StoredTried = [string, string, 0 | 1];

type StoredCandidate =
  | string
  | [string, number | null, number, number | null, 0 | 1]
  | [string, number | null, number, number | null, 0 | 1, 1];

const storedTried: Decoder<StoredTried> = (value) => {
  if (!Array.isArray(value) || value.length !== 3) return mismatch('[connection, payment, 0 or 1]', value);
  const [connection, payment, refused] = value;
  if (refused !== 0 && refused !== 1) return mismatch('0 or 1', refused);
  return [string(connection), string(payment), refused];
};

const STRATEGIES = ['link', 'default', 'enabled', 'priority', 'split', ...OPTIMIZE_GOALS] as const;
const share = /* @__PURE__ */ nullable(number);

const storedCandidate: Decoder<StoredCandidate> = (value) => {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value) || (value.length !== 5 && value.length !== 6)) {
    return mismatch('an id or 5 or 6 estimates', value);
  }
  const [connection, paidShare, sessions, fee, eliminated, reported] = value;
  if (eliminated !== 0 && eliminated !== 1) return mismatch('0 or 1', eliminated);
  const estimates = [string(connection), share(paidShare), number(sessions), share(fee), eliminated] as const;
  if (value.length === 5) return [...estimates];
  return reported === 1 ? [...estimates, 1] : mismatch('1', reported);
};

/** A payment's stored decision, checked (payment-mapper.ts). */
export const storedRouting = /* @__PURE__ */ lazy(() =>
  objectOf<StoredRouting>({
    s: oneOf(STRATEGIES),
    g: string,
    r: optional(string),
    c: optional(arrayOf(storedCandidate)),
    x: optional(literal(1)),
    v: optional(literal(1)),
    h: optional(literal(1)),
    t: optional(arrayOf(storedTried)),
    d: optional(string),
  }),
);

const known = (estimate: CandidateEstimate) =>
  estimate.paid_share !== null ||
  estimate.sessions > 0 ||
  estimate.expected_fee !== null ||
  estimate.eliminated;

function storedCandidateOf(estimate: CandidateEstimate): StoredCandidate {
  const stored = [
    estimate.connection,
    estimate.paid_share,
    estimate.sessions,
    estimate.expected_fee,
    estimate.eliminated ? 1 : 0,
  ] as const;
  return estimate.fee_basis === 'reported' ? [...stored, 1] : [...stored];
}

export function toStoredRouting(decision: RoutingDecision): StoredRouting {
  const { candidates } = decision;
  const onlyChosen =
    candidates.length === 1 && candidates[0]?.connection === decision.chosen && !known(candidates[0]);
  return {
    s: decision.strategy,
    g: segmentKey(decision.segment),
    ...(decision.rule === null ? {} : { r: decision.rule }),
    ...(onlyChosen
      ? {}
      : {
          c: candidates.map((estimate) =>
            known(estimate) ? storedCandidateOf(estimate) : estimate.connection,
          ),
        }),
    ...(decision.exploration ? { x: 1 } : {}),
    ...(decision.recovery ? { v: 1 } : {}),
    ...(decision.holdout ? { h: 1 } : {}),
    ...(decision.tried?.length
      ? {
          t: decision.tried.map(
            (attempt): StoredTried => [
              attempt.connection_id,
              attempt.payment_id,
              attempt.outcome === 'refused' ? 1 : 0,
            ],
          ),
        }
      : {}),
    ...(decision.recovers === undefined ? {} : { d: decision.recovers }),
  };
}

export function fromStoredRouting(stored: StoredRouting, connectionId: string): RoutingDecision {
  const candidates = (stored.c ?? [connectionId]).map((entry): CandidateEstimate => {
    if (typeof entry === 'string') {
      return {
        connection: entry,
        paid_share: null,
        sessions: 0,
        expected_fee: null,
        fee_basis: null,
        eliminated: false,
      };
    }
    const [connection, paidShare, sessions, fee, eliminated, reported] = entry;
    return {
      connection,
      paid_share: paidShare,
      sessions,
      expected_fee: fee,
      // Before reported fees were learned, every expected fee came from the fee lines.
      fee_basis: fee === null ? null : reported === 1 ? 'reported' : 'configured',
      eliminated: eliminated === 1,
    };
  });
  return {
    rule: stored.r ?? null,
    strategy: stored.s,
    segment: parseSegmentKey(stored.g),
    candidates,
    chosen: connectionId,
    exploration: stored.x === 1,
    recovery: stored.v === 1,
    holdout: stored.h === 1,
    ...(stored.t
      ? {
          tried: stored.t.map(
            ([connection_id, payment_id, refused]): TriedAttempt => ({
              connection_id,
              payment_id,
              outcome: refused === 1 ? 'refused' : 'unavailable',
            }),
          ),
        }
      : {}),
    ...(stored.d === undefined ? {} : { recovers: stored.d }),
  };
}
