import { hostname, userInfo } from 'node:os';
import type { AuditedAction } from '../../functions/domain/console-access.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import type { ConsoleStore } from '../../functions/ports/console-store.ts';
import { auditedChange } from '../../functions/use-cases/console-audit.ts';

/** What a command changes: in which account and mode, and what (an id, or null for the account's own). */
export interface Command {
  account: string;
  mode: Mode;
  action: AuditedAction;
  target: string | null;
}

/**
 * Makes an operator's change on the command line with its audit-log entry written first and settled after
 * (docs/console.md#audit-log), as the console's and the API's are: the entry names the operator by their login and
 * machine (`via: cli`), from the machine's name. `madeOf` names what the change made, when the command could not
 * (a new key's id). A command that exits half-way leaves its entry `attempted`.
 */
export function auditedCommand<T>(
  store: ConsoleStore,
  command: Command,
  change: () => Promise<T>,
  madeOf?: (result: T) => string | null,
): Promise<T> {
  const machine = hostname();
  const { account, mode, action, target } = command;
  const operator = {
    account,
    mode,
    user: `${userInfo().username}@${machine}`,
    role: null,
    via: 'cli' as const,
  };
  return auditedChange(
    { store, now: () => new Date() },
    operator,
    { action, target, sourceIp: machine },
    change,
    (result) => ({ outcome: 'succeeded', ...(madeOf && { target: madeOf(result) }) }),
  );
}
