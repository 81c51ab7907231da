/**
 * Routing: which connections serve a link, in which order (docs/orchestration.md, "Routing"). Pure: the
 * document, its validation against the account-mode's connections, and the rule engine.
 */
export interface RoutingCondition {
  currency?: string[] | undefined;
  amount_min?: string | undefined;
  amount_max?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

export interface SplitShare {
  connection: string;
  weight: number;
}

export type RoutingTarget = { priority: string[] } | { split: SplitShare[] };

export interface RoutingRule {
  name: string;
  when: RoutingCondition;
  then: RoutingTarget;
}

/** The routing document of an (account, mode), as the merchant sets it with `PUT /v1/routing`. */
export interface Routing {
  rules: RoutingRule[];
  default: string[];
}
