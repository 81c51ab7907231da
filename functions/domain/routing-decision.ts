import type { Segment } from './outcomes.ts';
import type { CandidateEstimate, OptimizeGoal } from './strategies.ts';

/**
 * Why a link's connections come in their order (docs/orchestration.md#reading-a-decision), recorded on each
 * payment as `routing`: the rule and strategy, what was known of each candidate, the one chosen, and whether it
 * was an exploration, a recovery or held out. Every attempt of one opening carries it: a failover attempt names
 * the attempts of the opening before it (`tried`), and a recovery the declined payment it recovers (`recovers`).
 */
export interface RoutingDecision {
  /** The matching rule's name; null for the link's own list, the default list, or no routing. */
  rule: string | null;
  strategy: 'link' | 'default' | 'enabled' | 'priority' | 'split' | OptimizeGoal;
  segment: Segment;
  candidates: CandidateEstimate[];
  /** The connection the attempt went to: where its session opened, or the failover attempt that could not open one. */
  chosen: string | null;
  exploration: boolean;
  recovery: boolean;
  /**
   * Routed by the `optimize` rule's baseline, not by learning: the checkout was drawn into the rule's holdout
   * (docs/orchestration.md#holdout). Its strategy is still the rule's goal.
   */
  holdout: boolean;
  /** The attempts of the same opening before this one, in their order (failover); absent on its first. */
  tried?: TriedAttempt[];
  /** On a recovery: the payment that ended unpaid and that this attempt recovers (`recovery` is then true). */
  recovers?: string;
}

/**
 * An attempt an opening made before this one, at a connection that opened no session: `unavailable` when the PSP
 * failed (no answer, an error: counted against its health), `refused` when it refused this link (an amount or a
 * currency it does not take).
 */
export interface TriedAttempt {
  connection_id: string;
  payment_id: string;
  outcome: 'unavailable' | 'refused';
}
