import type { Segment } from './outcomes.ts';
import type { CandidateEstimate, OptimizeGoal } from './strategies.ts';

/**
 * Why a link's connections come in their order (docs/orchestration.md#reading-a-decision), recorded on each
 * payment as `routing`: the rule and strategy, what was known of each candidate, the one chosen, and whether it
 * was an exploration, a recovery or held out.
 */
export interface RoutingDecision {
  /** The matching rule's name; null for the link's own list, the default list, or no routing. */
  rule: string | null;
  strategy: 'link' | 'default' | 'enabled' | 'priority' | 'split' | OptimizeGoal;
  segment: Segment;
  candidates: CandidateEstimate[];
  /** The connection the session was opened at (set when one opened). */
  chosen: string | null;
  exploration: boolean;
  recovery: boolean;
  /**
   * Routed by the `optimize` rule's baseline, not by learning: the checkout was drawn into the rule's holdout
   * (docs/orchestration.md#holdout). Its strategy is still the rule's goal.
   */
  holdout: boolean;
}
