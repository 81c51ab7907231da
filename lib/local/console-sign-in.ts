import type { SignInGrant } from '../../functions/domain/console-access.ts';
import type { ConsoleStore } from '../../functions/ports/console-store.ts';
import { useLocalStack } from './cli-target.ts';
import type { LocalStackState } from './stack-state.ts';

/** The one-time sign-in link for `grant` on the stack at `baseUrl`, its token kept (hashed) by `store`. */
export async function signInLinkOf(
  baseUrl: string,
  store: ConsoleStore,
  grant: SignInGrant,
): Promise<string> {
  const { issueSignInToken } = await import('../../functions/use-cases/console-sessions.ts');
  const token = await issueSignInToken({ store, now: () => new Date() }, grant);
  return `${baseUrl}/console/sign-in?token=${token}`;
}

/**
 * A one-time sign-in link into the console of a running local stack (`npm run console -- sign-in-link`), its
 * token stored in the stack's embedded table (`useLocalStack` first: the adapters read the endpoint on first use).
 */
export async function localSignInLink(
  state: LocalStackState,
  dataDir: string,
  grant: SignInGrant,
): Promise<string> {
  useLocalStack(state, dataDir);
  const { DynamoConsoleStore } = await import('../../functions/adapters/dynamodb/console-store.ts');
  const { documentClient } = await import('../../functions/clients/dynamodb.ts');
  return signInLinkOf(state.base_url, new DynamoConsoleStore(documentClient(), state.table_name), grant);
}
