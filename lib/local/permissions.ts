import { AsyncLocalStorage } from 'node:async_hooks';
import { documentClient } from '../../functions/clients/dynamodb.ts';
import { sqsClient } from '../../functions/clients/sqs.ts';
import { type FunctionDefinition, functions, type HandlerName, tableActionsOf } from '../routes.ts';

/**
 * IAM, emulated: while a handler runs in the local stack, its DynamoDB and SQS calls are refused unless the CDK
 * stack grants them to its function (lib/routes.ts, the same `tableActionsOf` the stack turns into policies).
 * A missing grant then fails `npm start` and the integration tests as it would fail on AWS, instead of only
 * after a deployment. Calls outside any handler (tests arranging data, the CLIs, the local SQS poller) are
 * not functions and are not checked.
 */
const runningFunction = new AsyncLocalStorage<HandlerName>();

export function asFunction<T>(handler: HandlerName, invoke: () => Promise<T>): Promise<T> {
  return runningFunction.run(handler, invoke);
}

function accessDenied(handler: HandlerName, action: string): Error {
  return Object.assign(
    new Error(`AccessDenied: the ${handler} function is not granted ${action} (lib/routes.ts).`),
    { name: 'AccessDeniedException' },
  );
}

let installed = false;

export function enforceFunctionPermissions(): void {
  if (installed) return;
  installed = true;
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      const handler = runningFunction.getStore();
      const action = String(context.commandName).replace(/Command$/, '');
      if (handler && !(tableActionsOf(handler) as string[]).includes(action)) {
        throw accessDenied(handler, `dynamodb:${action}`);
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
}
