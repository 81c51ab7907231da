import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import {
  createConnection,
  legacyStripeSecretName,
  PROVIDERS,
  type Provider,
  type PspConnection,
  SIMULATIONS,
  type Simulation,
} from '../functions/domain/connection.ts';
import { ConnectionInUseError } from '../functions/domain/errors.ts';
import { isPaymentMethod, PAYMENT_METHODS, type PaymentMethod } from '../functions/domain/payment-methods.ts';
import { MODES, type Mode } from '../functions/domain/principal.ts';
import { failWithUsage, selectCliTarget } from '../lib/local/cli-target.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';
import {
  LOCAL_PSP_SECRET_PREFIX,
  LOCAL_SECRETS_FILE,
  writeLocalSecrets,
} from '../lib/local/local-secrets.ts';
import { runningStack } from '../lib/local/stack-state.ts';
import { feeLineOf, successRateOf, withFeeLine } from './psp-fees.ts';

/** Credential flags per provider, and the field of the stored credentials JSON each one fills. */
const CREDENTIAL_FLAGS: Record<Provider, Record<string, string>> = {
  sandbox: {},
  stripe: {
    'stripe-secret-key': 'secret_key',
    'stripe-webhook-secret': 'webhook_secret',
    'stripe-previous-webhook-secret': 'previous_webhook_secret',
  },
  mollie: { 'mollie-api-key': 'api_key' },
  adyen: {
    'adyen-api-key': 'api_key',
    'adyen-merchant-account': 'merchant_account',
    'adyen-hmac-key': 'hmac_key',
    'adyen-previous-hmac-key': 'previous_hmac_key',
    'adyen-environment': 'environment',
    'adyen-live-prefix': 'live_endpoint_url_prefix',
  },
  paypal: {
    'paypal-client-id': 'client_id',
    'paypal-client-secret': 'client_secret',
    'paypal-webhook-id': 'webhook_id',
    'paypal-environment': 'environment',
  },
  checkout: {
    'checkout-secret-key': 'secret_key',
    'checkout-processing-channel-id': 'processing_channel_id',
    'checkout-signature-key': 'signature_key',
    'checkout-previous-signature-key': 'previous_signature_key',
    'checkout-subdomain': 'subdomain',
  },
};

const USAGE = `Usage:
  npm run psp -- add --account <account> --mode test|live --provider ${PROVIDERS.join('|')} --name <name>
                 [credential flags] [--methods card,ideal,...] [--simulate ${SIMULATIONS.join('|')}]
                 [--success-rate 0.7] [--json]
  npm run psp -- fees <connection_id> --percent 1.4 --fixed 0.25 [--currency EUR] [--method card]
  npm run psp -- list --account <account> [--json]
  npm run psp -- disable <connection_id>
  npm run psp -- enable <connection_id>
  npm run psp -- remove <connection_id>   (refused, exit 1, while a payment or refund is pending through it)

Credential flags (checked against the mode before anything is stored):
  stripe   --stripe-secret-key sk_test_...|sk_live_... --stripe-webhook-secret whsec_...
           [--stripe-previous-webhook-secret whsec_... while a rotation overlaps]
  mollie   --mollie-api-key test_...|live_...
  adyen    --adyen-api-key ... --adyen-merchant-account ... --adyen-hmac-key ... --adyen-environment test|live
           [--adyen-live-prefix ...] [--adyen-previous-hmac-key ... while a rotation overlaps]
  paypal   --paypal-client-id ... --paypal-client-secret ... --paypal-webhook-id ...
           [--paypal-environment sandbox|live: the mode's, and only the mode's]
  checkout --checkout-secret-key sk_sbox_...|sk_... --checkout-processing-channel-id pc_...
           --checkout-signature-key ... [--checkout-subdomain <first 8 characters of the client id>]
           [--checkout-previous-signature-key ... while a rotation overlaps]
  any      --credentials '<the credentials JSON>' (docs/orchestration.md#connections)
  sandbox  none; --simulate ok|fail|timeout (test mode only) makes session creation succeed, fail as a PSP 5xx
           would, or hang past the PSP timeout: how routing and failover are tried. --simulate processing makes
           Pay start a transfer that succeeds 30 s later, during which the session refuses to end (a cancel or
           expiry waits for it: docs/checkout.md#sandbox). --success-rate P makes Pay succeed with probability P
           and otherwise decline as a PSP would (default 1). --simulate renewal_soft_decline, renewal_hard_decline
           or renewal_authentication declines every renewal of the connection's mandates so (docs/subscriptions.md).

Fees: each \`fees\` call sets one line (replacing the line for the same currency and method); the most specific
matching line prices a payment for \`optimize: cost\` and \`value\` rules (docs/orchestration.md#fees).

Target: the running local stack (npm start, found through DATA_DIR, default .data; credentials go into its
0600 secrets file), or a deployed stack with --table <TableName output> and --secret-prefix <PspSecretPrefix
output> (credentials go into Secrets Manager) and the usual AWS credentials and region.`;

const fail: (message: string) => never = failWithUsage(USAGE);

const credentialOptions = Object.fromEntries(
  Object.values(CREDENTIAL_FLAGS).flatMap((flags) =>
    Object.keys(flags).map((flag) => [flag, { type: 'string' as const }]),
  ),
);
const { values, positionals } = parseCommandLine(
  {
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      mode: { type: 'string' },
      provider: { type: 'string' },
      name: { type: 'string' },
      simulate: { type: 'string' },
      'success-rate': { type: 'string' },
      percent: { type: 'string' },
      fixed: { type: 'string' },
      currency: { type: 'string' },
      method: { type: 'string' },
      methods: { type: 'string' },
      credentials: { type: 'string' },
      json: { type: 'boolean', default: false },
      table: { type: 'string' },
      'secret-prefix': { type: 'string' },
      'base-url': { type: 'string' },
      ...credentialOptions,
    },
  },
  USAGE,
);
const flags = values as Record<string, string | boolean | undefined>;

if (values.table && !values['secret-prefix']) {
  fail('--secret-prefix (the PspSecretPrefix stack output) is needed with --table.');
}
const { localDataDir } = selectCliTarget(values.table, fail);
const localSecretsFile = localDataDir && join(localDataDir, LOCAL_SECRETS_FILE);
const secretPrefix = (localDataDir ? LOCAL_PSP_SECRET_PREFIX : values['secret-prefix']) as string;
const baseUrl =
  values['base-url'] ?? (localDataDir ? runningStack(localDataDir)?.base_url : undefined) ?? '<BaseUrl>';

// Imported after the target is chosen: the repositories read TABLE_NAME and the SDK endpoint on first use.
const { DynamoPspConnectionRepository } = await import(
  '../functions/adapters/dynamodb/psp-connection-repository.ts'
);
const { DynamoPspConfigRepository } = await import('../functions/adapters/dynamodb/psp-config-repository.ts');
const { documentClient } = await import('../functions/clients/dynamodb.ts');
const { pspFactoriesForChecks } = await import('../lib/psp-credential-checks.ts');
const { DynamoPaymentRepository } = await import('../functions/adapters/dynamodb/payment-repository.ts');
const { DynamoRefundLedger } = await import('../functions/adapters/dynamodb/refund-ledger.ts');
const { migrateLegacyConfig, removeConnection } = await import('../functions/use-cases/psp-connections.ts');
const table = process.env.TABLE_NAME as string;
const repository = new DynamoPspConnectionRepository(documentClient(), table);
const legacyConfigs = new DynamoPspConfigRepository(documentClient(), table);

function requireAccount(): string {
  const account = values.account;
  if (!account || !ACCOUNT_PATTERN.test(account))
    fail('--account must be 1-64 characters of A-Z a-z 0-9 _ -.');
  return account;
}

function credentialsFrom(provider: Provider): unknown {
  if (values.credentials !== undefined) {
    try {
      return JSON.parse(values.credentials);
    } catch {
      fail('--credentials must be JSON.');
    }
  }
  const entries = Object.entries(CREDENTIAL_FLAGS[provider]).flatMap(([flag, field]) =>
    typeof flags[flag] === 'string' ? [[field, flags[flag]]] : [],
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

async function storeSecret(name: string, value: string): Promise<void> {
  if (localSecretsFile) {
    const secrets = existsSync(localSecretsFile) ? JSON.parse(readFileSync(localSecretsFile, 'utf8')) : {};
    secrets[name] = value;
    writeLocalSecrets(localSecretsFile, secrets);
    return;
  }
  const { CreateSecretCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  await new SecretsManagerClient({}).send(new CreateSecretCommand({ Name: name, SecretString: value }));
}

const notificationUrl = (connection: PspConnection) =>
  `${baseUrl}/psp/${connection.provider}/notifications/${connection.id}`;

async function requireConnection(change: (id: string) => Promise<PspConnection | undefined>) {
  const id = positionals[1];
  if (!id) fail('Name the connection: pc_....');
  const connection = await change(id);
  if (!connection) fail(`No connection ${id}.`);
  return connection;
}

switch (positionals[0]) {
  case 'add': {
    const account = requireAccount();
    if (!MODES.includes(values.mode as Mode)) fail('--mode must be test or live.');
    const mode = values.mode as Mode;
    if (!PROVIDERS.includes(values.provider as Provider))
      fail(`--provider must be one of ${PROVIDERS.join(', ')}.`);
    const provider = values.provider as Provider;
    const name = values.name?.trim();
    if (!name || name.length > 100) fail('--name must be 1-100 characters.');
    if (values.simulate !== undefined) {
      if (provider !== 'sandbox') fail('--simulate is for sandbox connections only.');
      if (!SIMULATIONS.includes(values.simulate as Simulation))
        fail(`--simulate must be one of ${SIMULATIONS.join(', ')}.`);
    }
    const successRate = successRateOf(values['success-rate']);
    if (typeof successRate === 'string') fail(successRate);
    if (successRate !== undefined && provider !== 'sandbox')
      fail('--success-rate is for sandbox connections only.');
    const methods = values.methods?.split(',').map((method) => method.trim());
    const unknownMethod = methods?.find((method) => !isPaymentMethod(method));
    if (methods && (methods.length === 0 || unknownMethod !== undefined)) {
      fail(`--methods takes a comma-separated list of ${PAYMENT_METHODS.join(', ')}.`);
    }
    const factory = pspFactoriesForChecks().find((candidate) => candidate.provider === provider);
    if (!factory) fail(`No adapter for ${provider} in this version.`);
    const credentials = credentialsFrom(provider);
    try {
      factory.checkCredentials(credentials, mode);
    } catch (error) {
      fail((error as Error).message);
    }
    // An account still on its one pre-connection PSP keeps it, as its first connection.
    await migrateLegacyConfig(
      {
        repository,
        legacyConfigs,
        legacySecretName: (a, m) => legacyStripeSecretName(secretPrefix, a, m),
      },
      account,
      mode,
    );
    const connection = createConnection(
      {
        account,
        mode,
        provider,
        name,
        simulate: values.simulate as Simulation | undefined,
        methods: methods as PaymentMethod[] | undefined,
        success_rate: successRate,
      },
      secretPrefix,
      new Date(),
    );
    if (connection.secret_name) await storeSecret(connection.secret_name, JSON.stringify(credentials));
    await repository.create(connection);
    if (values.json) {
      console.log(JSON.stringify({ connection_id: connection.id }));
    } else {
      console.log(`Added ${provider} connection ${connection.id} "${name}" for ${account} (${mode}).`);
      if (provider === 'stripe' || provider === 'adyen' || provider === 'paypal' || provider === 'checkout') {
        console.log(`Point the ${provider} webhook / notification endpoint of that account at
  ${notificationUrl(connection)}`);
      }
    }
    break;
  }
  case 'list': {
    const account = requireAccount();
    const rows = [];
    for (const mode of MODES) {
      const { connections } = await repository.directory(account, mode);
      for (const { connection, health } of connections) {
        rows.push({ ...connection, notification_url: notificationUrl(connection), health });
      }
    }
    if (values.json) {
      console.log(JSON.stringify(rows));
    } else if (rows.length === 0) {
      console.log(`${account} has no connections (test mode uses the built-in sandbox).`);
    } else {
      for (const row of rows) {
        const state = row.enabled ? 'enabled' : 'disabled';
        const simulate = row.simulate && row.simulate !== 'ok' ? ` simulate=${row.simulate}` : '';
        console.log(`${row.id}  ${row.mode}  ${row.provider}  ${state}${simulate}  "${row.name}"`);
      }
    }
    break;
  }
  case 'fees': {
    const line = feeLineOf(values);
    if (typeof line === 'string') fail(line);
    const connection = await requireConnection(async (id) => {
      const found = await repository.get(id);
      return found && repository.setFees(id, withFeeLine(found.connection.fees, line));
    });
    console.log(`${connection.id} fees: ${JSON.stringify(connection.fees)}`);
    break;
  }
  case 'enable':
  case 'disable': {
    const enabled = positionals[0] === 'enable';
    const connection = await requireConnection((id) => repository.setEnabled(id, enabled));
    console.log(`${connection.id} is ${enabled ? 'enabled' : 'disabled'}.`);
    break;
  }
  case 'remove': {
    const connection = await requireConnection(async (id) => {
      try {
        return await removeConnection(
          {
            repository,
            payments: new DynamoPaymentRepository(documentClient(), table),
            refunds: new DynamoRefundLedger(documentClient(), table),
          },
          id,
        );
      } catch (error) {
        if (!(error instanceof ConnectionInUseError)) throw error;
        console.error(error.message);
        console.error(`  npm run psp -- disable ${id}`);
        process.exit(1);
      }
    });
    console.log(
      `${connection.id} removed.${connection.secret_name ? ` Its credentials stay in ${connection.secret_name}; delete them when no session of it can still be paid.` : ''}`,
    );
    break;
  }
  default:
    fail(positionals[0] ? `Unknown command ${positionals[0]}.` : 'Missing command.');
}
