import { DynamoApiKeyRepository } from './adapters/dynamodb/api-key-repository.ts';
import { DynamoLinkRepository } from './adapters/dynamodb/link-repository.ts';
import { SqsEventQueue } from './adapters/sqs/event-queue.ts';
import { documentClient } from './clients/dynamodb.ts';
import { sqsClient } from './clients/sqs.ts';
import { config } from './config.ts';
import { ApiKeyAuthenticator } from './use-cases/authenticate.ts';

/**
 * The composition root: each adapter is built on first use and then shared for the life of the container.
 * Getters rather than module-level instances, so a function's bundle keeps only the adapters it uses.
 */
// esbuild treats every call of a @__NO_SIDE_EFFECTS__ function as pure: a bundle drops the getters its
// handler never calls, and with them the clients and SDKs only they use.
/* @__NO_SIDE_EFFECTS__ */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= build();
    return value;
  };
}

export const now = () => new Date();

export const linkRepository = once(() => new DynamoLinkRepository(documentClient, config().TABLE_NAME));

export const apiKeyRepository = once(() => new DynamoApiKeyRepository(documentClient, config().TABLE_NAME));

export const eventQueue = once(() => new SqsEventQueue(sqsClient, config().EVENTS_QUEUE_URL));

export const apiKeyAuthenticator = once(
  () =>
    new ApiKeyAuthenticator(apiKeyRepository(), { cacheTtlMs: config().API_KEY_CACHE_TTL_SECONDS * 1000 }),
);
