import type { Amount } from './money.ts';
import type { Mode, Principal } from './principal.ts';

/**
 * Who may do what in the merchant console (docs/console.md#roles). A console user belongs to one account and has
 * one role; the mode they work in is theirs to switch. Their account and mode are the same `Principal` an API key
 * resolves to, so every read and write goes through the API's own use cases, scoped the same way.
 */
export const CONSOLE_ROLES = ['admin', 'finance', 'viewer'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/**
 * Every change the console can make, and the reads not every role may make (the audit log, exports, buyers'
 * details); any other read needs no more than being signed in to the account.
 */
export const CONSOLE_ACTIONS = [
  'link.create',
  'link.cancel',
  'refund.create',
  'webhook.manage',
  'event.redeliver',
  'routing.edit',
  'settings.edit',
  'keys.manage',
  'export.read',
  'mode.switch',
  'audit.read',
  'buyer.read',
  'buyer.erase',
  'subscription.cancel',
] as const;
export type ConsoleAction = (typeof CONSOLE_ACTIONS)[number];

/**
 * `admin`: everything, the only one to see and manage API keys; `finance`: payments, refunds, exports and canceling
 * subscriptions; `viewer`: reads only (switching mode changes
 * nothing, and the audit log and exports are not theirs to read). A buyer's details are personal data: read by
 * those who may export them anyway (admin, finance), erased by an admin (docs/console.md#personal-data).
 */
const ALLOWED: Record<ConsoleRole, readonly ConsoleAction[]> = {
  admin: CONSOLE_ACTIONS,
  finance: ['refund.create', 'export.read', 'mode.switch', 'buyer.read', 'subscription.cancel'],
  viewer: ['mode.switch'],
};

export function mayPerform(role: ConsoleRole, action: ConsoleAction): boolean {
  return ALLOWED[role].includes(action);
}

/** The signed-in user: the principal the use cases take, plus who they are and their role. */
export interface ConsoleUser extends Principal {
  /** The e-mail address (Cognito) or `sign-in link` for a locally issued link: what the audit log names. */
  user: string;
  role: ConsoleRole;
}

/** What a one-time sign-in link grants once it is used: a session for this user in the test mode. */
export interface SignInGrant {
  account: string;
  role: ConsoleRole;
  user: string;
}

/** A sign-in link works this long after it was printed, and once. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** However active, a session ends this long after sign-in. */
export const SESSION_MAX_MS = 12 * 3_600_000;

export interface ConsoleSession extends ConsoleUser {
  /** The hash of the cookie's session id (the id itself is never stored). */
  id_hash: string;
  /** The synchronizer token every form of this session carries. */
  csrf_token: string;
  created_at: string;
  /** When the session ends unless used before: the idle timeout, capped by `SESSION_MAX_MS` after sign-in. */
  expires_at: string;
}

/** The session's end after a request at `now`: idle timeout from now, never past its maximum life. */
export function sessionExpiry(createdAt: string, now: Date): string {
  const idle = now.getTime() + SESSION_IDLE_MS;
  const max = new Date(createdAt).getTime() + SESSION_MAX_MS;
  return new Date(Math.min(idle, max)).toISOString();
}

export const isLive = (session: { expires_at: string }, now: Date): boolean =>
  new Date(session.expires_at).getTime() > now.getTime();

/** Changes only the API or the CLI makes: the console has no form for them (docs/console.md#audit-log). */
export const API_ACTIONS = [
  'link.update',
  'subscription.update',
  'account.edit',
  'connection.manage',
] as const;

/** What the audit log records beyond the actions a role is checked for: signing in and out, and the API's own. */
export type AuditedAction =
  | ConsoleAction
  | 'session.sign-in'
  | 'session.sign-out'
  | (typeof API_ACTIONS)[number];

/** Every action an audit entry may record. */
export const AUDITED_ACTIONS: readonly AuditedAction[] = [
  ...CONSOLE_ACTIONS,
  'session.sign-in',
  'session.sign-out',
  ...API_ACTIONS,
];

/** Where a change came from besides the console: a merchant's API key, or an operator's command line. */
export const AUDIT_CHANNELS = ['api', 'cli'] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** What an entry's target is beyond its id: a refund's amount and the payment it refunds. */
export interface AuditSubject {
  amount?: Amount;
  /** The id of what the target belongs to (a refund's payment). */
  of?: string;
}

/**
 * What became of what an entry records (docs/console.md#audit-log): `attempted` is written before a change and
 * replaced by its outcome once known, so an entry still `attempted` is one whose outcome was never recorded (the
 * function stopped, or that write failed): the change may or may not have been made. `unchanged`: answered
 * without a change (a preview, a confirmation asked for). `failed`: not made, with the status it was answered
 * with. `refused`: refused before anything ran, with the reason.
 */
export const AUDIT_OUTCOMES = ['attempted', 'succeeded', 'unchanged', 'failed', 'refused'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/**
 * The audit partition of attempts that name no account (a forged sign-in link, a sign-in the identity provider
 * refused, a form another site sent): no account id takes this value (`ACCOUNT_PATTERN`).
 */
export const NO_ACCOUNT = '*';

/** One sign-in, sign-out, change or refused attempt in the console: who, what, what became of it, when, from where. */
export interface AuditEntry {
  /** Unique within the account's entries of the same instant. */
  id: string;
  /** The account acted on, or `NO_ACCOUNT`. */
  account: string;
  /** The mode the user was in; null when no session or grant says. */
  mode: Mode | null;
  /** Who (as `ConsoleUser.user`, or the API key or operator `via` names) and their console role; null when unknown (a refused sign-in) or none (the API, the CLI). */
  user: string | null;
  role: ConsoleRole | null;
  action: AuditedAction;
  /** The id of what changed (a link, a refund), if any. */
  target: string | null;
  /** What the target is beyond its id, when the change said (a refund's amount and payment). */
  about?: AuditSubject;
  /**
   * Where the change came from: the API (`user` is the key: its display prefix and id) or the CLI (`user` is the
   * operator's login and machine); absent: the console.
   */
  via?: AuditChannel;
  outcome: AuditOutcome;
  /** Why it was refused (`csrf`, `role`, `cross-site`, `link-unknown`, ...) or the status it failed with. */
  reason: string | null;
  source_ip: string;
  at: string;
}
