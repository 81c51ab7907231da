import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import { MODES, type Mode } from '../functions/domain/principal.ts';
import { failWithUsage, selectCliTarget } from '../lib/local/cli-target.ts';
import {
  LOCAL_PSP_SECRET_PREFIX,
  LOCAL_SECRETS_FILE,
  writeLocalSecrets,
} from '../lib/local/local-secrets.ts';

const USAGE = `Usage:
  npm run psp -- set --account <account> --mode test|live --provider stripe|sandbox
                [--stripe-secret-key sk_... --stripe-webhook-secret whsec_...]   (local stack only)
  npm run psp -- show --account <account> --mode test|live

Chooses which PSP serves an account's checkout in a mode (default: sandbox in test mode, none in live mode).
Target: the running local stack (npm start, found through DATA_DIR, default .data), or a deployed stack with
--table <TableName output> and --secret-prefix <PspSecretPrefix output>. On a deployed stack the Stripe keys go
into Secrets Manager yourself (the command prints how); locally they are written to the stack's secrets file.`;

const fail: (message: string) => never = failWithUsage(USAGE);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    mode: { type: 'string' },
    provider: { type: 'string' },
    table: { type: 'string' },
    'secret-prefix': { type: 'string' },
    'stripe-secret-key': { type: 'string' },
    'stripe-webhook-secret': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const account = values.account;
if (!account || !ACCOUNT_PATTERN.test(account)) fail('--account must be 1-64 characters of A-Z a-z 0-9 _ -.');
if (!MODES.includes(values.mode as Mode)) fail('--mode must be test or live.');
const mode = values.mode as Mode;

if (values.table && !values['secret-prefix']) {
  fail('--secret-prefix (the PspSecretPrefix stack output) is needed with --table.');
}
const { localDataDir } = selectCliTarget(values.table, fail);
const localSecretsFile = localDataDir && join(localDataDir, LOCAL_SECRETS_FILE);
const secretPrefix = localDataDir ? LOCAL_PSP_SECRET_PREFIX : values['secret-prefix'];

const { DynamoPspConfigRepository } = await import('../functions/adapters/dynamodb/psp-config-repository.ts');
const { StripePspFactory } = await import('../functions/adapters/psp/stripe-psp.ts');
const { documentClient } = await import('../functions/clients/dynamodb.ts');
const configs = new DynamoPspConfigRepository(documentClient, process.env.TABLE_NAME as string);
const secretName = StripePspFactory.secretName(secretPrefix as string, account, mode);

switch (positionals[0]) {
  case 'set': {
    const provider = values.provider;
    if (provider !== 'stripe' && provider !== 'sandbox') fail('--provider must be stripe or sandbox.');
    if (provider === 'sandbox' && mode === 'live') fail('The sandbox serves test mode only.');
    if (provider === 'stripe' && localSecretsFile) {
      const secretKey = values['stripe-secret-key'];
      const webhookSecret = values['stripe-webhook-secret'];
      if (!secretKey?.startsWith('sk_') && !secretKey?.startsWith('rk_'))
        fail('--stripe-secret-key sk_... is needed.');
      if (!webhookSecret?.startsWith('whsec_')) fail('--stripe-webhook-secret whsec_... is needed.');
      const secrets = existsSync(localSecretsFile) ? JSON.parse(readFileSync(localSecretsFile, 'utf8')) : {};
      secrets[secretName] = JSON.stringify({ secret_key: secretKey, webhook_secret: webhookSecret });
      writeLocalSecrets(localSecretsFile, secrets);
    }
    await configs.put({ account, mode, provider, updated_at: new Date().toISOString() });
    console.log(`${account} (${mode}) now pays through ${provider}.`);
    if (provider === 'stripe' && !localSecretsFile) {
      console.log(`
Store the Stripe credentials in Secrets Manager (once; put-secret-value to change them):
  aws secretsmanager create-secret --name '${secretName}' \\
    --secret-string '{"secret_key":"sk_live_...","webhook_secret":"whsec_..."}'
and point a Stripe webhook endpoint at <BaseUrl>/psp/stripe/notifications with the events
checkout.session.completed, checkout.session.expired, checkout.session.async_payment_succeeded and
checkout.session.async_payment_failed.`);
    }
    break;
  }
  case 'show': {
    const config = await configs.get(account, mode);
    console.log(
      JSON.stringify(
        {
          account,
          mode,
          provider: config?.provider ?? (mode === 'test' ? 'sandbox (default)' : null),
          secret_name: secretName,
        },
        null,
        2,
      ),
    );
    break;
  }
  default:
    fail(positionals[0] ? `Unknown command ${positionals[0]}.` : 'Missing command.');
}
