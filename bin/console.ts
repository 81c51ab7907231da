import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import { CONSOLE_ROLES, type ConsoleRole } from '../functions/domain/console-access.ts';
import { failWithUsage } from '../lib/local/cli-target.ts';
import { runningStack } from '../lib/local/stack-state.ts';

const USAGE = `Usage:
  npm run console -- sign-in-link --account <account> --role admin|finance|viewer [--user <name>]
  npm run console -- invite --account <account> --email <address> --role admin|finance|viewer

sign-in-link prints a one-time link into the console of the running local stack (npm start, found through
DATA_DIR, default .data): it works once, within 15 minutes. A deployed stack signs its users in through its
Cognito user pool instead, and invite creates them there (docs/console.md#signing-in).`;

const fail: (message: string) => never = failWithUsage(USAGE);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    role: { type: 'string' },
    email: { type: 'string' },
    user: { type: 'string' },
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
    const state = runningStack(resolve(process.env.DATA_DIR ?? '.data'));
    if (!state) fail('No local stack runs from this checkout: start it with `npm start`.');
    console.log(await localSignInLink(state, { account, role, user: values.user ?? `${role}@${account}` }));
    break;
  }
  case 'invite':
    // Decided: the local stack has no user pool, so an invitation there would create nobody; it says so.
    fail(
      "invite creates a user in a deployed stack's Cognito user pool; the local stack has none: use sign-in-link.\n" +
        'Deployed: aws cognito-idp admin-create-user --user-pool-id <ConsoleUserPoolId output> --username <email> ' +
        '--user-attributes Name=email,Value=<email> Name=custom:account,Value=<account> Name=custom:role,Value=<role>',
    );
    break;
  default:
    fail(`Unknown command ${positionals[0] ?? '(none)'}.`);
}
