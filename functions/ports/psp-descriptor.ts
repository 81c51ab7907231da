import type * as z from 'zod/mini';
import type { PaymentFailureCode } from '../domain/payment-failure.ts';
import type { Mode } from '../domain/principal.ts';
import type { PspRules } from '../domain/psp-rules.ts';
import type { PspFactory, SessionLimits } from './psp.ts';
import type { SandboxMandateStore } from './sandbox-mandates.ts';
import type { SandboxSessionStore } from './sandbox-sessions.ts';
import type { SecretStore } from './secret-store.ts';

/**
 * What a PSP can do beyond the core `Psp`, the closed list a descriptor declares from (docs/orchestration.md#
 * capabilities, whose table is generated from the descriptors):
 * - `ends_sessions`, `captures_later`, `voids_authorizations`, `refunds`: its adapter implements the interface of
 *   that name (functions/ports/psp-capabilities.ts), which the use cases ask for with its guard;
 * - `partial_refunds`: it refunds a part of a payment (without it, only the whole payment, in one refund);
 * - `reads_buyer_details`: the status it reads back may carry what the buyer gave on its page (`buyer`);
 * - `line_items`: it is sent the link's lines (without it, one line at the amount);
 * - `locale`: its page speaks the buyer's language when told;
 * - `holds_mandates`: its adapter implements `HoldsMandates` (functions/ports/psp.ts): only its connections are
 *   routed a subscription link or an update link (docs/subscriptions.md#mandates), decided from the descriptor
 *   without loading the adapter;
 * - `mandates_without_charge`: besides, its sessions set a mandate up without charging anything (a trial's,
 *   docs/subscriptions.md#trials); without it, its connections are never routed a subscription link with a trial;
 * - `lists_payouts`: its adapter implements `ListsPayouts` (functions/ports/psp-capabilities.ts): its connections'
 *   payouts are read and matched to our payments by the settlement sweeper (docs/api.md#settlements).
 */
export const CAPABILITIES = [
  'ends_sessions',
  'captures_later',
  'voids_authorizations',
  'refunds',
  'partial_refunds',
  'reads_buyer_details',
  'line_items',
  'locale',
  'holds_mandates',
  'mandates_without_charge',
  'lists_payouts',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** A PSP's credentials: a zod object whose fields each `describe` themselves (the CLI's flags and help come from it). */
export type CredentialsSchema = z.ZodMiniObject;

/**
 * One PSP, as data and small pure functions (plain literals: docs/orchestration.md#adding-a-psp says why): what every function may load without the PSP's adapter and SDK (its
 * adapter and its SDK are loaded only when a connection of it is used: functions/adapters/psp/factories.ts). Everything else is generated from
 * it: the CLI's flags and credential checks, `<ID>_API_URL`, the API's provider enum, the capability table of
 * docs/orchestration.md. The amount rules, page asks and methods (`PspRules`) are read from here everywhere.
 */
export interface PspDescriptor<S extends CredentialsSchema = CredentialsSchema, Id extends string = string>
  extends PspRules {
  /** Lower case, `[a-z][a-z0-9_]*`: its connections' `provider`, its folder (`_` as `-`), its flags' prefix. */
  readonly id: Id;
  /** Its name as merchants know it ("Acme Pay"): the CLI, the console and its failures' messages say it. */
  readonly displayName: string;
  /** Former ids its stored connections and notification addresses may still carry (read as `id`). */
  readonly aliases?: readonly string[];
  /** It serves test mode only (the sandbox). */
  readonly testModeOnly: boolean;
  /**
   * Its credentials as stored (JSON in the secret store): the schema, built on first use (a zod schema costs time
   * to build, and a function that imports the descriptors need not build it); null: it has none of its own, and a
   * connection of it stores no secret (the sandbox). Each field's description is the help of its CLI flag.
   */
  readonly credentials: (() => S) | null;
  /**
   * Why the credentials, of the right shape, cannot serve a connection of `mode` (a key of the other mode, a
   * field one mode needs), or undefined: checked when they are stored and each time an adapter is built from them.
   */
  credentialsProblem(credentials: z.infer<S>, mode: Mode): string | undefined;
  /** What it can do beyond the core (`CAPABILITIES`). */
  readonly capabilities: readonly Capability[];
  /** How long its sessions may live. */
  readonly sessionLimits: SessionLimits;
  /**
   * Its own decline and error codes, as its API reports them on a failed payment, mapped to ours
   * (docs/orchestration.md#decline-codes); a code it reports and this lacks is `processing_error`. Absent: its
   * adapter reads no reason (its failures are `declined`), or keeps its table beside it in the same shape, which
   * only the functions that load the adapter then carry (docs/orchestration.md#decline-codes names which).
   */
  readonly declines?: Readonly<Record<string, PaymentFailureCode>>;
  /**
   * How its notifications reach us: configured once per connection at the PSP (`npm run psp -- add` prints the
   * address to point it at), or sent with each session (nothing to configure).
   */
  readonly notificationAddress: 'configured' | 'per_session';
  /**
   * For the PSP an (account, mode) chose before connections existed (docs/orchestration.md#migration): where that
   * configuration kept its credentials, and the link a notification to the address without a connection id names
   * (read from the unverified body, only to find the connection whose credentials then verify it).
   */
  readonly legacy?: {
    secretName(secretPrefix: string, account: string, mode: Mode): string;
    notificationLink(rawBody: string): { linkId: string; mode: Mode } | undefined;
  };
}

/** Whether `provider` names the PSP: its id, or one of its former ids (`aliases`), as stored or addressed. */
export const namesPsp = (descriptor: Pick<PspDescriptor, 'id' | 'aliases'>, provider: string): boolean =>
  descriptor.id === provider || (descriptor.aliases?.includes(provider) ?? false);

/** What the composition root hands each PSP's factory. */
export interface PspRuntime {
  /** Where stored connections keep their credentials. */
  secrets: SecretStore;
  /** `<ID>_API_URL` (tests: its fake): where its adapter sends its calls instead of the PSP's own origin. */
  apiUrl: string | undefined;
  /** Public base of the service: where its own pages are served. */
  baseUrl: string;
  now: () => Date;
  /** The sandbox's own store and signing secret: it is part of the service. */
  sandbox: {
    sessions: () => SandboxSessionStore;
    signingSecret: () => Promise<string>;
    mandates: () => SandboxMandateStore;
  };
}

/**
 * A PSP's factory, built on first use: its adapter module's `createFactory` (`<folder>/adapter.ts`) handed its
 * descriptor (functions/adapters/psp/factories.ts).
 */
export type CreatePspFactory = (runtime: PspRuntime) => PspFactory;
