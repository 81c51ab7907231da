import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/*
 * Amazon SQS fair queues, which fauxqs (2.4) does not emulate: on AWS a standard queue whose messages carry a
 * `MessageGroupId` treats each group as a tenant and, while one tenant takes a disproportionate share of the
 * consumers, hands out the other tenants' messages first. Webhook delivery relies on it (docs/webhooks.md,
 * "Queue order"), so the embedded queue does the same, by the rules AWS documents (the SQS Developer Guide,
 * "How Amazon SQS fair queues work"):
 *
 * - a message's tenant is its `MessageGroupId`; a message without one is a tenant of its own;
 * - a tenant is noisy while it holds more than 10% of the queue's in-flight messages and at least 30 of them, or
 *   took more than 10% of the consumers' recent processing time (from receive to delete; "recent" is not
 *   specified, here each millisecond counts half as much 30 seconds later);
 * - while any tenant is noisy, a receive takes the quiet tenants' messages first (oldest first), then the noisy
 *   tenants', the one with the fewest messages in flight first; nothing is dropped or held back otherwise.
 *
 * fauxqs exposes no hook for this, so its queue and router classes are extended in place: a standard queue keeps
 * the `MessageGroupId` it is sent (fauxqs drops it) and returns it with the message's attributes, as SQS does,
 * and its receive orders its ready messages by the rules above before taking them.
 */

/** How fast processing time stops counting as recent: it weighs half as much after this long. */
const PROCESSING_HALF_LIFE_MS = 30_000;
const NOISY_SHARE = 0.1;
const NOISY_MIN_IN_FLIGHT = 30;

interface StoredMessage {
  messageId: string;
  messageGroupId?: string;
}

interface InFlight {
  message: StoredMessage;
}

/** The parts of fauxqs's `SqsQueue` this extends (fauxqs/dist/sqs/sqsStore.js). */
interface FauxqsQueue {
  messages: StoredMessage[];
  delayedMessages: StoredMessage[];
  inflightMessages: Map<string, InFlight>;
  isFifo(): boolean;
  processTimers(): void;
  dequeue(maxCount: number, ...rest: unknown[]): Array<{ ReceiptHandle?: string }>;
  deleteMessage(receiptHandle: string): unknown;
}

/** The parts of fauxqs's `SqsRouter` this extends (fauxqs/dist/sqs/sqsRouter.js). */
interface FauxqsRouter {
  store: { getQueue(url: string): FauxqsQueue | undefined };
  handle(request: { headers: Record<string, unknown>; body: unknown }, reply: unknown): Promise<unknown>;
}

/** Processing time that decays with age: `ms` as of `at`. */
interface RecentTime {
  ms: number;
  at: number;
}

const recentMs = (time: RecentTime | undefined, now: number) =>
  time ? time.ms * 2 ** (-(now - time.at) / PROCESSING_HALF_LIFE_MS) : 0;

function addRecent(time: RecentTime, ms: number, now: number): void {
  time.ms = recentMs(time, now) + ms;
  time.at = now;
}

/** What a queue remembers of its consumers: when each in-flight message was received, and recent processing. */
interface ConsumerHistory {
  receivedAt: Map<string, number>;
  processing: Map<string, RecentTime>;
  totalProcessing: RecentTime;
}

const histories = new WeakMap<FauxqsQueue, ConsumerHistory>();

function historyOf(queue: FauxqsQueue): ConsumerHistory {
  let history = histories.get(queue);
  if (!history) {
    history = { receivedAt: new Map(), processing: new Map(), totalProcessing: { ms: 0, at: 0 } };
    histories.set(queue, history);
  }
  return history;
}

const tenantOf = (message: StoredMessage) => message.messageGroupId ?? `message:${message.messageId}`;

/**
 * The indices of the ready messages a receive of `count` takes, in order, when a tenant is noisy; undefined when
 * none is (the queue's own order).
 */
function fairShare(
  ready: readonly StoredMessage[],
  inFlight: ReadonlyMap<string, InFlight>,
  history: ConsumerHistory,
  count: number,
  now: number,
): number[] | undefined {
  const inFlightCount = new Map<string, number>();
  for (const { message } of inFlight.values()) {
    const tenant = tenantOf(message);
    inFlightCount.set(tenant, (inFlightCount.get(tenant) ?? 0) + 1);
  }
  const totalMs = recentMs(history.totalProcessing, now);
  const isNoisy = (tenant: string) => {
    const held = inFlightCount.get(tenant) ?? 0;
    if (held >= NOISY_MIN_IN_FLIGHT && held > NOISY_SHARE * inFlight.size) return true;
    return totalMs > 0 && recentMs(history.processing.get(tenant), now) > NOISY_SHARE * totalMs;
  };
  const noisy = new Map<string, boolean>();
  const quiet: number[] = [];
  const heldBack = new Map<string, number[]>();
  for (let index = 0; index < ready.length && quiet.length < count; index++) {
    const tenant = tenantOf(ready[index] as StoredMessage);
    let tenantIsNoisy = noisy.get(tenant);
    if (tenantIsNoisy === undefined) {
      tenantIsNoisy = isNoisy(tenant);
      noisy.set(tenant, tenantIsNoisy);
    }
    if (!tenantIsNoisy) quiet.push(index);
    else {
      const indices = heldBack.get(tenant) ?? [];
      heldBack.set(tenant, indices);
      if (indices.length < count) indices.push(index);
    }
  }
  if (!heldBack.size) return undefined;
  const byFewestInFlight = [...heldBack].sort(
    ([a], [b]) => (inFlightCount.get(a) ?? 0) - (inFlightCount.get(b) ?? 0),
  );
  return [...quiet, ...byFewestInFlight.flatMap(([, indices]) => indices)].slice(0, count);
}

/** Moves the messages a receive of `count` should take to the front of the ready list, in that order. */
function putFairShareFirst(queue: FauxqsQueue, count: number, now: number): void {
  if (queue.messages.length < 2) return;
  const history = historyOf(queue);
  // Messages whose visibility timeout ended went back without a delete: forget when they were received.
  if (history.receivedAt.size > 2 * queue.inflightMessages.size + 100) {
    for (const handle of history.receivedAt.keys()) {
      if (!queue.inflightMessages.has(handle)) history.receivedAt.delete(handle);
    }
  }
  const taken = fairShare(queue.messages, queue.inflightMessages, history, count, now);
  if (!taken || taken.every((index, position) => index === position)) return;
  const first = new Set(taken);
  queue.messages = [
    ...taken.map((index) => queue.messages[index] as StoredMessage),
    ...queue.messages.filter((_, index) => !first.has(index)),
  ];
}

/** Finds the stored message of `messageId`, wherever it is now (ready, delayed, or already received). */
function storedMessage(queue: FauxqsQueue, messageId: string): StoredMessage | undefined {
  const byId = (message: StoredMessage) => message.messageId === messageId;
  return (
    queue.messages.findLast(byId) ??
    queue.delayedMessages.findLast(byId) ??
    [...queue.inflightMessages.values()].find((entry) => byId(entry.message))?.message
  );
}

interface SendRequest {
  QueueUrl?: string;
  MessageGroupId?: string;
  Entries?: Array<{ Id?: string; MessageGroupId?: string }>;
}

interface SendResult {
  MessageId?: string;
  Successful?: Array<{ Id?: string; MessageId?: string }>;
}

/** Gives the messages a send put on a standard queue the `MessageGroupId`s they were sent with. */
function keepGroupIds(router: FauxqsRouter, action: string, request: SendRequest, result: SendResult) {
  const queue = request.QueueUrl ? router.store.getQueue(request.QueueUrl) : undefined;
  if (!queue || queue.isFifo()) return;
  const sent =
    action === 'SendMessage'
      ? [{ messageId: result.MessageId, group: request.MessageGroupId }]
      : (result.Successful ?? []).map((success) => ({
          messageId: success.MessageId,
          group: request.Entries?.find((entry) => entry.Id === success.Id)?.MessageGroupId,
        }));
  for (const { messageId, group } of sent) {
    const message = group && messageId ? storedMessage(queue, messageId) : undefined;
    if (message) message.messageGroupId = group;
  }
}

let installing: Promise<void> | undefined;

/** Makes every fauxqs standard queue of this process a fair queue, once. */
export function emulateFairQueues(): Promise<void> {
  installing ??= install();
  return installing;
}

async function install(): Promise<void> {
  // fauxqs exports only its entry point; its classes are reached by path (pinned by the lock file).
  const dist = dirname(fileURLToPath(import.meta.resolve('fauxqs')));
  const load = async (path: string) => import(pathToFileURL(join(dist, path)).href);
  const { SqsQueue } = (await load('sqs/sqsStore.js')) as { SqsQueue: { prototype: FauxqsQueue } };
  const { SqsRouter } = (await load('sqs/sqsRouter.js')) as { SqsRouter: { prototype: FauxqsRouter } };

  const dequeue = SqsQueue.prototype.dequeue;
  SqsQueue.prototype.dequeue = function (this: FauxqsQueue, maxCount: number, ...rest: unknown[]) {
    if (this.isFifo()) return dequeue.call(this, maxCount, ...rest);
    const now = Date.now();
    this.processTimers();
    putFairShareFirst(this, maxCount, now);
    const received = dequeue.call(this, maxCount, ...rest);
    const { receivedAt } = historyOf(this);
    for (const { ReceiptHandle } of received) if (ReceiptHandle) receivedAt.set(ReceiptHandle, now);
    return received;
  };

  const deleteMessage = SqsQueue.prototype.deleteMessage;
  SqsQueue.prototype.deleteMessage = function (this: FauxqsQueue, receiptHandle: string) {
    const history = historyOf(this);
    const entry = this.inflightMessages.get(receiptHandle);
    const receivedAt = history.receivedAt.get(receiptHandle);
    if (entry && receivedAt !== undefined) {
      const now = Date.now();
      addRecent(history.totalProcessing, now - receivedAt, now);
      // A message without a group is a tenant of its own, which ends with it: nothing to remember.
      const group = entry.message.messageGroupId;
      if (group !== undefined) {
        const time = history.processing.get(group) ?? { ms: 0, at: now };
        history.processing.set(group, time);
        addRecent(time, now - receivedAt, now);
      }
    }
    history.receivedAt.delete(receiptHandle);
    return deleteMessage.call(this, receiptHandle);
  };

  const handle = SqsRouter.prototype.handle;
  SqsRouter.prototype.handle = async function (this: FauxqsRouter, request, reply) {
    const result = await handle.call(this, request, reply);
    const action = String(request.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
    if (action === 'SendMessage' || action === 'SendMessageBatch') {
      keepGroupIds(this, action, request.body as SendRequest, result as SendResult);
    }
    return result;
  };
}
