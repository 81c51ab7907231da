import { AsyncLocalStorage } from 'node:async_hooks';
import { localKeyUseChecks } from '../../functions/adapters/secrets/file-key-cipher.ts';
import { localSecretReadChecks } from '../../functions/adapters/secrets/file-secret-store.ts';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import {
  type FunctionDefinition,
  functions,
  type HandlerName,
  isDeniedToPublic,
  isPublicFacing,
  tableActionsOf,
} from '../routes.ts';
import { LOCAL_PSP_SECRET_PREFIX, LOCAL_SANDBOX_SECRET_NAME } from './local-secrets.ts';

/**
 * IAM, emulated: while a handler runs in the local stack, its DynamoDB and SQS calls are refused unless the CDK
 * stack grants them to its function (lib/routes.ts, the same `tableActionsOf` the stack turns into policies).
 * A missing grant then fails `npm start` and the integration tests as it would fail on AWS, instead of only
 * after a deployment. Public-facing functions are also refused the partitions `dynamodb:LeadingKeys` denies them
 * on AWS (API keys, signing secrets), only functions granted the signing key may use the local key file that
 * stands in for KMS, and a function reads only the secrets its `secrets` name (the sandbox's signing secret, PSP
 * credentials under their prefix), as `lib/constructs/checkout-secrets.ts` grants them. Calls outside any handler (tests arranging data, the CLIs, the local SQS poller) are not
 * functions and are not checked.
 */
const runningFunction = new AsyncLocalStorage<HandlerName>();

/** The function whose invocation this code runs in, if any. */
export function currentFunction(): HandlerName | undefined {
  return runningFunction.getStore();
}

/**
 * Every call the emulation refused in this process. A handler may catch and log an AccessDenied (a best-effort
 * step), so tests read the refusals here rather than hope for a failed response
 * (test/integration/stored-connection-sessions.test.ts).
 */
export const permissionAudit = { refused: [] as { handler: HandlerName; action: string }[] };

export function asFunction<T>(handler: HandlerName, invoke: () => Promise<T>): Promise<T> {
  return runningFunction.run(handler, invoke);
}

function accessDenied(handler: HandlerName, action: string): Error {
  permissionAudit.refused.push({ handler, action });
  return Object.assign(
    new Error(`AccessDenied: the ${handler} function is not granted ${action} (lib/routes.ts).`),
    { name: 'AccessDeniedException' },
  );
}

/** The clients the emulation guards: each local stack's are new (functions/once.ts). */
const guardedClients = new WeakSet<object>();
let processWideChecksInstalled = false;

/** What each function is granted, worked out once: the check runs on every DynamoDB call a handler makes. */
const grants = new Map<HandlerName, { tableActions: Set<string>; publicFacing: boolean }>();
function grantsOf(handler: HandlerName) {
  let granted = grants.get(handler);
  if (!granted) {
    granted = { tableActions: new Set(tableActionsOf(handler)), publicFacing: isPublicFacing(handler) };
    grants.set(handler, granted);
  }
  return granted;
}

export function enforceFunctionPermissions(): void {
  const dynamodb = documentClient();
  if (guardedClients.has(dynamodb)) return;
  guardedClients.add(dynamodb);
  dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      const handler = runningFunction.getStore();
      if (!handler) return next(args);
      const action = String(context.commandName).replace(/Command$/, '');
      const granted = grantsOf(handler);
      if (!granted.tableActions.has(action)) throw accessDenied(handler, `dynamodb:${action}`);
      if (granted.publicFacing) {
        const denied = partitionKeysOf(args.input).find(isDeniedToPublic);
        if (denied) throw accessDenied(handler, `dynamodb:${action} on the partition ${denied}`);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localIamEmulation' },
  );
  sqsClient().middlewareStack.add(
    (next, context) => async (args) => {
      const handler = runningFunction.getStore();
      if (handler) {
        const definition: FunctionDefinition = functions[handler];
        const queueUrl = (args.input as { QueueUrl?: string }).QueueUrl;
        const sendsTo =
          (queueUrl === process.env.EVENTS_QUEUE_URL && definition.sendsEvents) ||
          (queueUrl === process.env.EVENTS_DEAD_LETTER_QUEUE_URL && definition.sendsDeadLetters);
        const action = String(context.commandName).replace(/Command$/, '');
        if (!(action.startsWith('SendMessage') && sendsTo)) throw accessDenied(handler, `sqs:${action}`);
      }
      return next(args);
    },
    { step: 'initialize', name: 'localIamEmulation' },
  );
  // The key file and the secrets file are read by modules, not clients: their checks are installed once.
  if (processWideChecksInstalled) return;
  processWideChecksInstalled = true;
  localKeyUseChecks.push((operation) => {
    const handler = runningFunction.getStore();
    const granted = handler && (functions[handler] as FunctionDefinition).signingKey;
    if (handler && !(granted === true || (granted === 'seal' && operation === 'encrypt'))) {
      throw accessDenied(handler, `kms:${operation === 'encrypt' ? 'GenerateDataKey' : 'Decrypt'}`);
    }
  });
  localSecretReadChecks.push((name) => {
    const handler = runningFunction.getStore();
    if (!handler) return;
    const granted = (functions[handler] as FunctionDefinition).secrets ?? [];
    const kind =
      name === LOCAL_SANDBOX_SECRET_NAME
        ? 'sandbox'
        : name.startsWith(LOCAL_PSP_SECRET_PREFIX)
          ? 'psp'
          : undefined;
    if (!kind || !granted.includes(kind)) {
      throw accessDenied(handler, `secretsmanager:GetSecretValue on ${name}`);
    }
  });
}

/**
 * The partition-key values a DynamoDB request names, as `dynamodb:LeadingKeys` sees them; for a Query, every
 * string among its expression values (the partition key is one of them), which errs on the side of refusing.
 */
function partitionKeysOf(input: unknown): string[] {
  const request = input as {
    Key?: { pk?: unknown };
    Item?: { pk?: unknown };
    RequestItems?: Record<
      string,
      | { Keys?: { pk?: unknown }[] }
      | { PutRequest?: { Item?: { pk?: unknown } }; DeleteRequest?: { Key?: { pk?: unknown } } }[]
    >;
    KeyConditionExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  const found: unknown[] = [request.Key?.pk, request.Item?.pk];
  for (const entry of Object.values(request.RequestItems ?? {})) {
    if (Array.isArray(entry)) {
      for (const write of entry) found.push(write.PutRequest?.Item?.pk, write.DeleteRequest?.Key?.pk);
    } else {
      for (const key of entry.Keys ?? []) found.push(key.pk);
    }
  }
  if (request.KeyConditionExpression) found.push(...Object.values(request.ExpressionAttributeValues ?? {}));
  return found.filter((value): value is string => typeof value === 'string');
}
