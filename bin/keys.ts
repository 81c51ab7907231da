import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import { MODES, type Mode } from '../functions/domain/principal.ts';
import { failWithUsage, selectCliTarget } from '../lib/local/cli-target.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';

const USAGE = `Usage:
  npm run keys -- create --account <account> --mode test|live [--json]
  npm run keys -- list --account <account> [--json]
  npm run keys -- revoke <key_id>
  npm run keys -- rotate-webhook-secret --account <account> --mode test|live [--json]

Target: the running local stack (npm start, found through DATA_DIR, default .data), or a deployed stack with
--table <TableName output> (or TABLE_NAME), --signing-key <SigningKeyArn output> (or SIGNING_KEY_ID: the KMS
key webhook secrets are sealed with) and the usual AWS credentials and region.`;

const fail: (message: string) => never = failWithUsage(USAGE);

const { values, positionals } = parseCommandLine(
  {
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      mode: { type: 'string' },
      json: { type: 'boolean', default: false },
      table: { type: 'string' },
      'signing-key': { type: 'string' },
    },
  },
  USAGE,
);

function requireAccount(): string {
  const account = values.account;
  if (!account || !ACCOUNT_PATTERN.test(account))
    fail('--account must be 1-64 characters of A-Z a-z 0-9 _ -.');
  return account;
}

const [command, ...rest] = positionals;
const cliTarget = selectCliTarget(values.table ?? process.env.TABLE_NAME, fail);
const target = cliTarget.description;
// Imported after the target is chosen: the repositories read TABLE_NAME and the SDK endpoint on first use.
const { DynamoApiKeyRepository } = await import('../functions/adapters/dynamodb/api-key-repository.ts');
const { DynamoSigningSecretStore } = await import('../functions/adapters/dynamodb/signing-secret-store.ts');
const { FileKeyCipher } = await import('../functions/adapters/secrets/file-key-cipher.ts');
const { KmsCipher } = await import('../functions/adapters/secrets/kms-cipher.ts');
const { documentClient } = await import('../functions/clients/dynamodb.ts');
const { kmsClient } = await import('../functions/clients/kms.ts');
const { issueApiKey, listApiKeys, rotateWebhookSecret } = await import('../functions/use-cases/api-keys.ts');
const { DynamoConsoleStore } = await import('../functions/adapters/dynamodb/console-store.ts');
const { auditedCommand } = await import('../lib/local/cli-audit.ts');
const repository = new DynamoApiKeyRepository(documentClient(), process.env.TABLE_NAME as string);
// Every change is in the account's audit log, naming the operator (docs/console.md#audit-log).
const auditLog = new DynamoConsoleStore(documentClient(), process.env.TABLE_NAME as string);
// Webhook secrets are sealed at rest: with the local stack's key file, or the deployed stack's KMS key.
const secrets = new DynamoSigningSecretStore(
  documentClient(),
  process.env.TABLE_NAME as string,
  cliTarget.localDataDir
    ? new FileKeyCipher(process.env.LOCAL_SIGNING_KEY_FILE as string)
    : new KmsCipher({ client: kmsClient, keyId: values['signing-key'] ?? process.env.SIGNING_KEY_ID }),
);

switch (command) {
  case 'create': {
    const account = requireAccount();
    if (!MODES.includes(values.mode as Mode)) fail('--mode must be test or live.');
    const mode = values.mode as Mode;
    const issued = await auditedCommand(
      auditLog,
      { account, mode, action: 'keys.manage', target: null },
      () => issueApiKey({ keys: repository, secrets }, account, mode),
      (made) => made.key_id,
    );
    if (values.json) {
      console.log(JSON.stringify(issued));
    } else {
      console.log(`Created ${issued.mode} key ${issued.key_id} for ${issued.account} (${target}).

  API key         ${issued.api_key}
  Webhook secret  ${issued.webhook_secret}

The key is shown this once only: store it now. Only its hash is kept.`);
    }
    break;
  }
  case 'list': {
    const keys = await listApiKeys(repository, requireAccount());
    if (values.json) console.log(JSON.stringify(keys));
    else if (!keys.length) console.log('No keys.');
    else
      console.table(
        keys.map(({ key_id, mode, display_prefix, status, created_at }) => ({
          key_id,
          mode,
          display_prefix,
          status,
          created_at,
        })),
      );
    break;
  }
  case 'revoke': {
    const keyId = rest[0];
    if (!keyId) fail('revoke needs a key id (see `list`).');
    const key = await repository.get(keyId);
    if (!key) fail(`No key ${keyId}.`);
    const command = { account: key.account, mode: key.mode, action: 'keys.manage' as const, target: keyId };
    const revoked = await auditedCommand(auditLog, command, () => repository.revoke(keyId, new Date()));
    if (!revoked) fail(`No key ${keyId}.`);
    console.log(
      values.json
        ? JSON.stringify({ key_id: revoked.key_id, status: revoked.status, revoked_at: revoked.revoked_at })
        : `Revoked ${revoked.key_id}. Running functions stop accepting it within 60 seconds.`,
    );
    break;
  }
  case 'rotate-webhook-secret': {
    const account = requireAccount();
    if (!MODES.includes(values.mode as Mode)) fail('--mode must be test or live.');
    const mode = values.mode as Mode;
    const rotated = await auditedCommand(
      auditLog,
      { account, mode, action: 'keys.manage', target: null },
      () => rotateWebhookSecret(secrets, account, mode),
    ).catch(() => fail(`${account} has no ${mode} webhook secret yet: create a key first.`));
    console.log(
      values.json
        ? JSON.stringify(rotated)
        : `New webhook secret for ${account} (${values.mode}, ${target}):

  ${rotated.webhook_secret}

Webhooks are signed with both the new and the previous secret until ${rotated.previous_valid_until}.`,
    );
    break;
  }
  default:
    fail(command ? `Unknown command ${command}.` : 'Missing command.');
}
