import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Apart from lib/local/local-stack.ts, which writes it: the CLIs (`npm run keys`, `npm run psp`) find the running
// stack here without loading the stack itself (the embedded stores, the handlers), half of a CLI run's start.

/** Written while the stack runs, so `npm run keys` in the same checkout finds the embedded store. */
export const STATE_FILE = 'local-stack.json';

export interface LocalStackState {
  base_url: string;
  dynamodb_endpoint: string;
  table_name: string;
  pid: number;
}

/** Whether the process that wrote a state file still runs. */
function isRunning(state: LocalStackState): boolean {
  try {
    process.kill(state.pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The state of a local stack running from `dataDir`, or undefined (none, or a stale file a crash left). */
export function runningStack(dataDir: string): LocalStackState | undefined {
  const file = join(dataDir, STATE_FILE);
  if (!existsSync(file)) return undefined;
  const state = JSON.parse(readFileSync(file, 'utf8')) as LocalStackState;
  return isRunning(state) ? state : undefined;
}
