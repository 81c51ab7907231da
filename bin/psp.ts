import { join } from 'node:path';
import { checkCredentials } from '../functions/adapters/psp/kit/credentials.ts';
import { descriptorOf, PSP_DESCRIPTORS, PSP_IDS } from '../functions/adapters/psp/registry.ts';
import { ACCOUNT_PATTERN } from '../functions/domain/api-key.ts';
import {
  createConnection,
  type PspConnection,
  SIMULATIONS,
  type Simulation,
} from '../functions/domain/connection.ts';
import { ConnectionInUseError } from '../functions/domain/errors.ts';
import { isPaymentMethod, PAYMENT_METHODS, type PaymentMethod } from '../functions/domain/payment-methods.ts';
import { MODES, type Mode } from '../functions/domain/principal.ts';
import type { PspDescriptor } from '../functions/ports/psp-descriptor.ts';
import { failWithUsage, selectCliTarget } from '../lib/local/cli-target.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';
import { LOCAL_PSP_SECRET_PREFIX, LOCAL_SECRETS_FILE } from '../lib/local/local-secrets.ts';
import { runningStack } from '../lib/local/stack-state.ts';
import {
  credentialOptions,
  credentialsFromFlags,
  credentialsHelp,
  helpLine,
  secretsOf,
} from './psp-credentials.ts';
import { feeLineOf, successRateOf, withFeeLine } from './psp-fees.ts';

const USAGE = `Usage:
  npm run psp -- add --account <account> --mode test|live --provider ${PSP_IDS.join('|')} --name <name>
                 [credential flags] [--methods card,ideal,...] [--simulate ${SIMULATIONS.join('|')}]
                 [--success-rate 0.7] [--json]
  npm run psp -- update-credentials <connection_id> [its PSP's credential flags]
                 (replaces the fields given and keeps the others; --credentials replaces them all)
  npm run psp -- fees <connection_id> --percent 1.4 --fixed 0.25 [--currency EUR] [--method card]
  npm run psp -- list --account <account> [--json]
  npm run psp -- disable <connection_id>
  npm run psp -- enable <connection_id>
  npm run psp -- remove <connection_id>   (refused, exit 1, while a payment or refund is pending through it)

Credential flags (checked against the connection's mode before anything is stored):
${credentialsHelp()}
${helpLine('any', "--credentials '<the credentials JSON>' (docs/orchestration.md#connections)")}
${helpLine('sandbox', 'none; --simulate ok|fail|timeout (test mode only) makes session creation succeed, fail as a PSP 5xx')}
${[
  'would, or hang past the PSP timeout: how routing and failover are tried. --simulate processing makes',
  'Pay start a transfer that succeeds 30 s later, during which the session refuses to end (a cancel or',
  'expiry waits for it: docs/checkout.md#sandbox). --success-rate P makes Pay succeed with probability P',
  'and otherwise decline as a PSP would (default 1). --simulate renewal_soft_decline, renewal_hard_decline',
  "or renewal_authentication declines every renewal of the connection's mandates so (docs/subscriptions.md).",
  '--simulate decline_soft or decline_hard gives every decline a reason: insufficient_funds (recovered) or',
  'expired_card (never re-routed), docs/orchestration.md#decline-codes.',
]
  .map((line) => helpLine('', line))
  .join('\n')}

Fees: each \`fees\` call sets one line (replacing the line for the same currency and method); the most specific
matching line prices a payment for \`optimize: cost\` and \`value\` rules (docs/orchestration.md#fees).

Target: the running local stack (npm start, found through DATA_DIR, default .data; credentials go into its
0600 secrets file), or a deployed stack with --table <TableName output> and --secret-prefix <PspSecretPrefix
output> (credentials go into Secrets Manager) and the usual AWS credentials and region.`;

const fail: (message: string) => never = failWithUsage(USAGE);

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
      ...credentialOptions(),
    },
  },
  USAGE,
);
const flags = values as Record<string, string | boolean | undefined>;

if (values.table && !values['secret-prefix']) {
  fail('--secret-prefix (the PspSecretPrefix stack output) is needed with --table.');
}
const { localDataDir } = selectCliTarget(values.table, fail);
const secrets = secretsOf(localDataDir && join(localDataDir, LOCAL_SECRETS_FILE));
const secretPrefix = (localDataDir ? LOCAL_PSP_SECRET_PREFIX : values['secret-prefix']) as string;
const baseUrl =
  values['base-url'] ?? (localDataDir ? runningStack(localDataDir)?.base_url : undefined) ?? '<BaseUrl>';

// Imported after the target is chosen: the repositories read TABLE_NAME and the SDK endpoint on first use.
const { DynamoPspConnectionRepository } = await import(
  '../functions/adapters/dynamodb/psp-connection-repository.ts'
);
const { DynamoPspConfigRepository } = await import('../functions/adapters/dynamodb/psp-config-repository.ts');
const { documentClient } = await import('../functions/clients/dynamodb.ts');
const { DynamoPaymentRepository } = await import('../functions/adapters/dynamodb/payment-repository.ts');
const { DynamoRefundLedger } = await import('../functions/adapters/dynamodb/refund-ledger.ts');
const { migrateLegacyConfig, removeConnection } = await import('../functions/use-cases/psp-connections.ts');
const { DynamoConsoleStore } = await import('../functions/adapters/dynamodb/console-store.ts');
const { auditedCommand } = await import('../lib/local/cli-audit.ts');
const table = process.env.TABLE_NAME as string;
const repository = new DynamoPspConnectionRepository(documentClient(), table);
// Every change is in the account's audit log, naming the operator (docs/console.md#audit-log).
const auditLog = new DynamoConsoleStore(documentClient(), table);
const legacyConfigs = new DynamoPspConfigRepository(documentClient(), table);

function requireAccount(): string {
  const account = values.account;
  if (!account || !ACCOUNT_PATTERN.test(account))
    fail('--account must be 1-64 characters of A-Z a-z 0-9 _ -.');
  return account;
}

/** The credentials the flags give for `descriptor`'s PSP, checked against `mode`; exits on anything wrong. */
function checkedCredentials(descriptor: PspDescriptor, mode: Mode, given: unknown): unknown {
  const checked = checkCredentials(descriptor, given, mode);
  if (!checked.ok) fail(checked.problem);
  return checked.credentials;
}

function givenCredentials(descriptor: PspDescriptor): Record<string, unknown> | undefined {
  const given = credentialsFromFlags(descriptor, flags);
  if (typeof given === 'string') fail(given);
  return given;
}

const notificationUrl = (connection: PspConnection) =>
  `${baseUrl}/psp/${connection.provider}/notifications/${connection.id}`;

/** The connection the command names; exits when there is none. */
async function namedConnection(): Promise<PspConnection> {
  const id = positionals[1];
  if (!id) fail('Name the connection: pc_....');
  const found = await repository.get(id);
  if (!found) fail(`No connection ${id}.`);
  return found.connection;
}

/** Makes `change` to `connection`, recorded first in its account's audit log. */
const changeOf = <T>(connection: PspConnection, change: () => Promise<T>): Promise<T> =>
  auditedCommand(
    auditLog,
    {
      account: connection.account,
      mode: connection.mode,
      action: 'connection.manage',
      target: connection.id,
    },
    change,
  );

async function requireConnection(change: (id: string) => Promise<PspConnection | undefined>) {
  const named = await namedConnection();
  const connection = await changeOf(named, () => change(named.id));
  if (!connection) fail(`No connection ${named.id}.`);
  return connection;
}

switch (positionals[0]) {
  case 'add': {
    const account = requireAccount();
    if (!MODES.includes(values.mode as Mode)) fail('--mode must be test or live.');
    const mode = values.mode as Mode;
    const descriptor = descriptorOf(values.provider ?? '');
    if (!descriptor) fail(`--provider must be one of ${PSP_IDS.join(', ')}.`);
    const provider = descriptor.id;
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
    const credentials = checkedCredentials(descriptor, mode, givenCredentials(descriptor));
    // An account still on its one pre-connection PSP keeps it, as its first connection.
    await migrateLegacyConfig(
      { repository, legacyConfigs, descriptors: PSP_DESCRIPTORS, secretPrefix },
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
    await changeOf(connection, async () => {
      if (connection.secret_name)
        await secrets.put(connection.secret_name, JSON.stringify(credentials), false);
      await repository.create(connection);
    });
    if (values.json) {
      console.log(JSON.stringify({ connection_id: connection.id }));
    } else {
      console.log(`Added ${provider} connection ${connection.id} "${name}" for ${account} (${mode}).`);
      if (descriptor.notificationAddress === 'configured') {
        console.log(`Point the ${descriptor.displayName} webhook / notification endpoint of that account at
  ${notificationUrl(connection)}`);
      }
    }
    break;
  }
  case 'update-credentials': {
    const connection = await namedConnection();
    const descriptor = descriptorOf(connection.provider);
    if (!descriptor || !connection.secret_name) fail(`${connection.id} keeps no credentials.`);
    const given = givenCredentials(descriptor);
    if (!given) fail(`Give the credentials to change: ${descriptor.id}'s flags, or --credentials.`);
    const stored = await secrets.get(connection.secret_name);
    // The fields given replace their own; --credentials replaces them all.
    const kept = typeof flags.credentials === 'string' ? {} : (JSON.parse(stored ?? '{}') as object);
    const credentials = checkedCredentials(descriptor, connection.mode, { ...kept, ...given });
    const secretName = connection.secret_name;
    await changeOf(connection, () =>
      secrets.put(secretName, JSON.stringify(credentials), stored !== undefined),
    );
    console.log(
      `${connection.id} credentials updated (${Object.keys(given).sort().join(', ')}), checked for ${connection.mode} mode; in use within 5 minutes.`,
    );
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
    const remove = (id: string) =>
      removeConnection(
        {
          repository,
          payments: new DynamoPaymentRepository(documentClient(), table),
          refunds: new DynamoRefundLedger(documentClient(), table),
        },
        id,
      );
    // Refused while something is pending: its entry says so (`failed`), as the console's refusals do.
    const connection = await requireConnection(remove).catch((error: unknown) => {
      if (!(error instanceof ConnectionInUseError)) throw error;
      console.error(error.message);
      console.error(`  npm run psp -- disable ${positionals[1]}`);
      process.exit(1);
    });
    console.log(
      `${connection.id} removed.${connection.secret_name ? ` Its credentials stay in ${connection.secret_name}; delete them when no session of it can still be paid.` : ''}`,
    );
    break;
  }
  default:
    fail(positionals[0] ? `Unknown command ${positionals[0]}.` : 'Missing command.');
}
