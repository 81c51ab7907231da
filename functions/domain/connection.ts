import { createHash } from 'node:crypto';
import { idFromBytes, isId, newId } from './ids.ts';
import type { PaymentMethod } from './payment-methods.ts';
import type { Mode } from './principal.ts';

/**
 * A PSP's id (its descriptor's, functions/adapters/psp/registry.ts): the domain knows no PSP by name, and a
 * provider is checked against the registered ones where it comes in (the CLI, the connection read back, the API's
 * schemas).
 */
export type Provider = string;

/**
 * What a sandbox connection simulates: sessions that open (`ok`), creations that fail as a PSP 5xx (`fail`) or
 * never answer (`timeout`), or sessions whose Pay starts a transfer that succeeds only `SANDBOX_PROCESSING_MS`
 * later and meanwhile refuses to end, as a PSP's bank transfer may (`processing`). The `renewal_*` ones open
 * sessions as `ok` does, and decline every renewal of the connection's mandates: softly (insufficient funds),
 * hard (a closed account), or asking for the buyer's authentication (docs/subscriptions.md#the-sandbox). The
 * `decline_*` ones open sessions as `ok` does, and give every decline on them a reason: `soft` insufficient funds,
 * `hard` an expired card (docs/orchestration.md#decline-codes).
 */
export const SIMULATIONS = [
  'ok',
  'fail',
  'timeout',
  'processing',
  'renewal_soft_decline',
  'renewal_hard_decline',
  'renewal_authentication',
  'decline_soft',
  'decline_hard',
] as const;
export type Simulation = (typeof SIMULATIONS)[number];

/**
 * A PSP connection: one PSP account of a merchant in one mode (docs/orchestration.md). Credentials are not
 * here: they live in the SecretStore under `secret_name`, and no API ever returns them.
 */
export interface PspConnection {
  id: string;
  account: string;
  mode: Mode;
  provider: Provider;
  name: string;
  enabled: boolean;
  /** Sandbox only. */
  simulate: Simulation | null;
  /** Its credentials in the SecretStore; null for the sandbox. */
  secret_name: string | null;
  /** The payment methods it serves (`--methods`); absent or null: every method (functions/domain/payment-methods.ts). */
  methods?: PaymentMethod[] | null;
  /** Sandbox only: the probability that Pay succeeds (`--success-rate`); absent: 1. */
  success_rate?: number | null;
  /** What a payment costs at this connection (`npm run psp -- fees`); absent: unknown. */
  fees?: FeeLine[] | null;
  created_at: string;
}

/** One line of a connection's fees: the most specific line that matches a payment applies (`feeLineFor`). */
export interface FeeLine {
  /** Percent of the amount, e.g. 1.4. */
  percent: number;
  /** A fixed part in major units of the payment's currency, e.g. 0.25. */
  fixed: number;
  currency?: string | undefined;
  method?: PaymentMethod | undefined;
}

export const newConnectionId = (): string => newId('pc');
export const isConnectionId = (id: string): boolean => isId('pc', id);

/** Where a connection's credentials live: `<PSP_SECRET_PREFIX>connections/<id>`. */
export const connectionSecretName = (secretPrefix: string, id: string): string =>
  `${secretPrefix}connections/${id}`;

export interface NewConnection {
  account: string;
  mode: Mode;
  provider: Provider;
  name: string;
  simulate?: Simulation | null | undefined;
  methods?: PaymentMethod[] | null | undefined;
  success_rate?: number | null | undefined;
}

export function createConnection(input: NewConnection, secretPrefix: string, now: Date): PspConnection {
  const id = newConnectionId();
  return {
    id,
    account: input.account,
    mode: input.mode,
    provider: input.provider,
    name: input.name,
    enabled: true,
    simulate: input.provider === 'sandbox' ? (input.simulate ?? 'ok') : null,
    secret_name: input.provider === 'sandbox' ? null : connectionSecretName(secretPrefix, id),
    ...(input.methods?.length ? { methods: [...new Set(input.methods)] } : {}),
    ...(input.provider === 'sandbox' && input.success_rate != null
      ? { success_rate: input.success_rate }
      : {}),
    created_at: now.toISOString(),
  };
}

/**
 * The built-in sandbox: what serves a test-mode account that has no connection of its own. It is not stored,
 * belongs to no account in particular (the sandbox is part of the service) and cannot be named in routing.
 */
export const BUILT_IN_SANDBOX_ID = 'pc_BuiltInSandbox0000000000';

export function builtInSandbox(account: string, mode: Mode): PspConnection {
  return {
    id: BUILT_IN_SANDBOX_ID,
    account,
    mode,
    provider: 'sandbox',
    name: 'Built-in sandbox',
    enabled: true,
    simulate: 'ok',
    secret_name: null,
    created_at: new Date(0).toISOString(),
  };
}

/**
 * The id of the connection that an (account, mode) configured before connections existed (one PSP per
 * account and mode) becomes. Derived, not random, so every instance that migrates it, and the notification
 * route those accounts' PSPs already call, find the same connection (docs/orchestration.md#migration).
 */
export function migratedConnectionId(account: string, mode: Mode): string {
  const digest = createHash('sha256').update(`migrated-psp-config\0${account}\0${mode}`).digest();
  return idFromBytes('pc', digest);
}
