import {
  AUDIT_CHANNELS,
  AUDIT_OUTCOMES,
  AUDITED_ACTIONS,
  type AuditEntry,
  type AuditSubject,
  CONSOLE_ROLES,
  type ConsoleSession,
  type SignInGrant,
} from '../../domain/console-access.ts';
import {
  amount,
  type FieldDecoders,
  itemDecoder,
  mode,
  nullable,
  objectOf,
  oneOf,
  optional,
  string,
  withDefault,
} from './item-decoder.ts';

const role = /* @__PURE__ */ oneOf(CONSOLE_ROLES);

/** A one-time sign-in link's grant, and until when it may be used. */
export const signInLinkFromItem = /* @__PURE__ */ itemDecoder<SignInGrant & { expires_at: string }>(
  'console sign-in link',
  () => ({ account: string, role, user: string, expires_at: string }),
  { keep: 'drop' },
);

/** A console session: every field stored since the console exists (2026-11-28). */
export const consoleSessionFromItem = /* @__PURE__ */ itemDecoder<ConsoleSession>('console session', () => ({
  account: string,
  mode,
  user: string,
  role,
  id_hash: string,
  csrf_token: string,
  created_at: string,
  expires_at: string,
}));

/** An audit entry as stored: its `id` is in its key on entries written before they held it. */
type StoredAuditEntry = Omit<AuditEntry, 'id'> & { id?: string };

/**
 * An audit entry's fields. Entries from before outcomes were recorded (2026-11-29) were written after their
 * change had been made: they read as `succeeded`, with no reason, and their id is their key's.
 */
const auditFields = (): FieldDecoders<StoredAuditEntry> => ({
  id: optional(string),
  account: string,
  mode: nullable(mode),
  user: nullable(string),
  role: nullable(role),
  action: oneOf(AUDITED_ACTIONS),
  target: nullable(string),
  // Since 2026-11-29 (issue 53): absent on older entries, all of them the console's, none describing its target.
  about: optional(objectOf<AuditSubject>({ amount: optional(amount), of: optional(string) })),
  via: optional(oneOf(AUDIT_CHANNELS)),
  outcome: withDefault(oneOf(AUDIT_OUTCOMES), () => 'succeeded' as const),
  reason: withDefault(nullable(string), () => null),
  source_ip: string,
  at: string,
});

const decodeAuditEntry = /* @__PURE__ */ itemDecoder('console audit entry', auditFields);

/** An audit entry (its key `<at>#<id>` gives an older entry's id). */
export function auditEntryFromItem(item: Record<string, unknown>): AuditEntry {
  const { id, ...entry } = decodeAuditEntry(item);
  return { ...entry, id: id ?? String(item.sk).split('#')[1] ?? '' };
}
