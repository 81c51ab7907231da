import { BUILT_IN_SANDBOX_ID, type Provider } from '../domain/connection.ts';
import { type HealthStatus, healthStatus } from '../domain/connection-health.ts';
import { ValidationError } from '../domain/errors.ts';
import { PAYMENT_METHODS, type PaymentMethod } from '../domain/payment-methods.ts';
import type { Principal } from '../domain/principal.ts';
import { type Routing, routingProblems } from '../domain/routing.ts';
import type { PspConnections } from './psp-connections.ts';

export interface RoutingDependencies {
  psps: PspConnections;
  now: () => Date;
}

/** One connection as the merchant sees it (`GET /v1/psp-connections`): never its credentials. */
export interface ConnectionResource {
  id: string;
  object: 'psp_connection';
  provider: Provider;
  name: string;
  enabled: boolean;
  health: HealthStatus;
  /** The payment methods it serves (every method unless `--methods` narrowed them). */
  methods: PaymentMethod[];
}

/**
 * The caller's connections in their mode, in the order they were added, with their shared health; in test mode
 * with none of its own, the built-in sandbox that serves it.
 */
export async function listConnections(
  deps: RoutingDependencies,
  principal: Principal,
): Promise<ConnectionResource[]> {
  const { connections } = await deps.psps.directory(principal.account, principal.mode);
  const now = deps.now();
  if (connections.length === 0 && principal.mode === 'test') {
    return [
      {
        id: BUILT_IN_SANDBOX_ID,
        object: 'psp_connection',
        provider: 'sandbox',
        name: 'Built-in sandbox',
        enabled: true,
        health: 'healthy',
        methods: [...PAYMENT_METHODS],
      },
    ];
  }
  return connections.map(({ connection, health }) => ({
    id: connection.id,
    object: 'psp_connection',
    provider: connection.provider,
    name: connection.name,
    enabled: connection.enabled,
    health: healthStatus(health, now),
    methods: connection.methods ?? [...PAYMENT_METHODS],
  }));
}

/** The routing in force: the stored document, or (none stored) the enabled connections in the order added. */
export async function getRouting(deps: RoutingDependencies, principal: Principal): Promise<Routing> {
  const { connections, routing } = await deps.psps.directory(principal.account, principal.mode);
  return (
    routing ?? {
      rules: [],
      default: connections
        .filter(({ connection }) => connection.enabled)
        .map(({ connection }) => connection.id),
    }
  );
}

/** Replaces the routing; 422 with pointers when it names what is not a connection of this account and mode. */
export async function putRouting(
  deps: RoutingDependencies,
  principal: Principal,
  routing: Routing,
): Promise<Routing> {
  const { connections } = await deps.psps.directory(principal.account, principal.mode);
  const problems = routingProblems(
    routing,
    connections.map(({ connection }) => connection),
  );
  if (problems.length > 0) throw new ValidationError(problems);
  await deps.psps.putRouting(principal.account, principal.mode, routing);
  return routing;
}
