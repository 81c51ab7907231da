import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { IssuedApiKey } from '../functions/use-cases/api-keys.ts';
import { parseCommandLine } from '../lib/local/command-line.ts';
import { exportLine, quietTerminalUnlessAsked } from '../lib/local/terminal-output.ts';

/**
 * `npm start`: the whole service on one machine with embedded defaults. PORT (default 3000), HOST (default
 * 127.0.0.1) and DATA_DIR (default ./.data, git-ignored) are the settings, and FAULTS (with FAULTS_SEED) turns on
 * the fault mode (docs/operations.md#fault-injection). `npm start -- --bundled` runs
 * each function from the bundle `cdk synth` ships, in a process of its own, instead of the TypeScript sources.
 * `--verbose` (or LOG_LEVEL / POWERTOOLS_LOG_LEVEL) lets the functions' request logs and metric lines through.
 */
const USAGE = `Usage:
  npm start [-- [--bundled] [--verbose]]

The whole service on one machine (README.md#walk-through). PORT (default 3000), HOST (default 127.0.0.1),
DATA_DIR (default .data), FAULTS and FAULTS_SEED set it up; --bundled runs the Lambda bundles, --verbose prints
the functions' request logs and metrics.`;
const { values: flags } = parseCommandLine(
  {
    options: { bundled: { type: 'boolean', default: false }, verbose: { type: 'boolean', default: false } },
  },
  USAGE,
);
// Before the functions' modules load: their logger and metrics read these settings when they are built.
quietTerminalUnlessAsked(process.env, flags.verbose);
const { apiKeyAuthenticator, apiKeyRepository, consoleStore, signingSecretStore } = await import(
  '../functions/dependencies.ts'
);
const { issueApiKey } = await import('../functions/use-cases/api-keys.ts');
const { parseFaults } = await import('../lib/local/faults.ts');
const { startLocalStack } = await import('../lib/local/local-stack.ts');
const { signInLinkOf } = await import('../lib/local/console-sign-in.ts');
const env = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    DATA_DIR: z.string().default('.data'),
    FAULTS: z.string().optional(),
    FAULTS_SEED: z.string().optional(),
  })
  .parse(process.env);

let faults: ReturnType<typeof parseFaults>;
try {
  faults = parseFaults(env.FAULTS, env.FAULTS_SEED);
} catch (error) {
  console.error(`Cannot start: ${(error as Error).message}`);
  process.exit(1);
}

const dataDir = resolve(env.DATA_DIR);
if (!['127.0.0.1', 'localhost', '::1'].includes(env.HOST)) {
  console.warn(
    `Warning: HOST=${env.HOST} exposes the local stack beyond this machine. It accepts test keys printed below and\n` +
      'delivers webhooks to private addresses: use it on a network you trust only.',
  );
}
const stack = await startLocalStack({
  port: env.PORT,
  host: env.HOST,
  dataDir,
  bundled: flags.bundled ? { outdir: join(dataDir, 'bundles') } : undefined,
  faults,
}).catch((error: Error) => {
  console.error(`Cannot start: ${error.message}`);
  process.exit(1);
});

/** The demo account's key is kept under the data folder (local only), so every start can print it. */
async function demoCredentials(): Promise<IssuedApiKey> {
  const file = join(dataDir, 'demo-credentials.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as IssuedApiKey;
    const stillValid = await apiKeyAuthenticator()
      .authenticate(`Bearer ${saved.api_key}`)
      .then(() => true)
      .catch(() => false);
    if (stillValid) return saved;
  }
  const issued = await issueApiKey(
    { keys: apiKeyRepository(), secrets: signingSecretStore() },
    'acct_demo',
    'test',
  );
  writeFileSync(file, `${JSON.stringify(issued, null, 2)}\n`, { mode: 0o600 });
  return issued;
}

const demo = await demoCredentials();
const consoleLink = await signInLinkOf(stack.baseUrl, consoleStore(), {
  account: demo.account,
  role: 'admin',
  user: 'admin@acct_demo',
});
console.log(`
${exportLine({ base: stack.baseUrl, key: demo.api_key, webhookSecret: demo.webhook_secret })}

Payment links service running locally (data in ${dataDir})${flags.bundled ? ', from the Lambda bundles' : ''}
${faults ? `\n  FAULTS          ${stack.faults?.describe()}   (seed ${faults.seed}: FAULTS_SEED=${faults.seed} repeats the draws)\n` : ''}
  Base URL        ${stack.baseUrl}
  Checkout base   ${stack.checkoutBase}
  Console         ${consoleLink}   (one-time sign-in, 15 min)

  Test API key    ${demo.api_key}   (account ${demo.account})
  Webhook secret  ${demo.webhook_secret}

Try:
  curl -s ${stack.baseUrl}/v1/payment-links \\
    -H "Authorization: Bearer ${demo.api_key}" -H "Content-Type: application/json" \\
    -d '{"amount":{"value":"10.00","currency":"EUR"},"description":"Order 1001"}'

Then open the link's checkout_url in a browser and click Pay on the sandbox PSP's page.
More keys: npm run keys -- create --account acct_demo --mode test      Stop: Ctrl+C
${flags.verbose ? '' : 'Request logs and metrics: npm start -- --verbose (or LOG_LEVEL=INFO)\n'}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await stack.stop();
    process.exit(0);
  });
}
