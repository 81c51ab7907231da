import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import { CONSOLE_ROLES, type ConsoleRole } from '../functions/domain/console-access.ts';
import { failWithUsage } from '../lib/local/cli-target.ts';
import { runningStack } from '../lib/local/stack-state.ts';

const USAGE = `Usage:
  npm run console -- sign-in-link --account <account> --role admin|finance|viewer [--user <name>]
  npm run console -- invite --account <account> --email <address> --role admin|finance|viewer
    [--user-pool-id <id>]

sign-in-link prints a one-time link into the console of the running local stack (npm start, found through
DATA_DIR, default .data): it works once, within 15 minutes. A deployed stack signs its users in through its
Cognito user pool instead, and invite creates them there (docs/console.md#opening-it), with the usual AWS
credentials and region: the pool is the stack output ConsoleUserPoolId, given as --user-pool-id or in
CONSOLE_USER_POOL_ID.`;

const fail: (message: string) => never = failWithUsage(USAGE);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    role: { type: 'string' },
    email: { type: 'string' },
    user: { type: 'string' },
    'user-pool-id': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const account = values.account ?? '';
if (!ACCOUNT_PATTERN.test(account)) fail('--account must be 1-64 characters of A-Z a-z 0-9 _ -.');
const role = values.role as ConsoleRole;
if (!CONSOLE_ROLES.includes(role)) fail(`--role must be one of ${CONSOLE_ROLES.join(', ')}.`);

switch (positionals[0]) {
  case 'sign-in-link': {
    const { localSignInLink } = await import('../lib/local/console-sign-in.ts');
    const dataDir = resolve(process.env.DATA_DIR ?? '.data');
    const state = runningStack(dataDir);
    if (!state) fail('No local stack runs from this checkout: start it with `npm start`.');
    const grant = { account, role, user: values.user ?? `${role}@${account}` };
    console.log(await localSignInLink(state, dataDir, grant));
    break;
  }
  case 'invite': {
    const userPoolId = values['user-pool-id'] ?? process.env.CONSOLE_USER_POOL_ID;
    // Decided: the local stack has no user pool, so an invitation there would create nobody; it says so.
    if (!userPoolId) {
      fail(
        "invite creates a user in a deployed stack's Cognito user pool: pass --user-pool-id <its ConsoleUserPoolId output>.\n" +
          'The local stack has no user pool: use sign-in-link.',
      );
    }
    const email = values.email ?? '';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail('--email must be an e-mail address.');
    const { CognitoIdentityProviderClient } = await import('@aws-sdk/client-cognito-identity-provider');
    const { inviteConsoleUser } = await import('../lib/console-invite.ts');
    try {
      const user = await inviteConsoleUser(new CognitoIdentityProviderClient({}), {
        userPoolId,
        account,
        email,
        role,
      });
      console.log(
        `Invited ${user.username} (${role}, ${account}): Cognito e-mails them a temporary password.`,
      );
    } catch (error) {
      console.error((error as Error).message);
      process.exit(1);
    }
    break;
  }
  default:
    fail(`Unknown command ${positionals[0] ?? '(none)'}.`);
}
