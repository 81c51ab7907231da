import { join, resolve } from 'node:path';
import { LOCAL_SIGNING_KEY_FILE } from './local-secrets.ts';
import { type LocalStackState, runningStack } from './stack-state.ts';

/** Prints `message` and the command's usage, and exits with status 2 (a usage error). */
export function failWithUsage(usage: string): (message: string) => never {
  return (message) => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
}

/**
 * Points the AWS SDK of an administration CLI (`npm run keys`, `npm run psp`) at its target: a deployed
 * stack's table when `table` is given (normal AWS credentials and region), else the embedded store of the
 * local stack running from this checkout, found through `DATA_DIR`. Call it before importing the adapters:
 * they read TABLE_NAME and the SDK endpoint on first use.
 */
export function selectCliTarget(
  table: string | undefined,
  fail: (message: string) => never,
): { description: string; localDataDir: string | undefined } {
  if (table) {
    process.env.TABLE_NAME = table;
    return { description: `table ${table}`, localDataDir: undefined };
  }
  const dataDir = resolve(process.env.DATA_DIR ?? '.data');
  const state = runningStack(dataDir);
  if (!state) {
    fail(
      `No local stack runs from ${dataDir}: start it with \`npm start\`, or pass --table for a deployed stack.`,
    );
  }
  useLocalStack(state, dataDir);
  return { description: `local stack at ${state.base_url}`, localDataDir: dataDir };
}

/**
 * Points the AWS SDK and the functions' configuration at the embedded store of the local stack `state` describes
 * (its files in `dataDir`). Call it before importing the adapters: they read TABLE_NAME and the SDK endpoint on
 * first use.
 */
export function useLocalStack(state: LocalStackState, dataDir: string): void {
  Object.assign(process.env, {
    TABLE_NAME: state.table_name,
    AWS_ENDPOINT_URL_DYNAMODB: state.dynamodb_endpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    LOCAL_SIGNING_KEY_FILE: join(dataDir, LOCAL_SIGNING_KEY_FILE),
  });
}
