import { apiKeyRepository, signingSecretStore } from '../../functions/dependencies.ts';
import type { Mode } from '../../functions/domain/principal.ts';
import { type IssuedApiKey, issueApiKey } from '../../functions/use-cases/api-keys.ts';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../lib/local/local-stack.ts';

export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on parsed JSON of any shape
  body: any;
}

export interface TestStack extends LocalStack {
  /** Issues a fresh key for (account, mode) through the same use case as the keys CLI. */
  issueKey(account: string, mode: Mode): Promise<IssuedApiKey>;
  /** A request to the stack's API over real HTTP. */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<TestResponse>;
}

/**
 * The local stack in memory on an ephemeral port: real HTTP, the real handlers and the real AWS SDK against the
 * embedded DynamoDB. One per test file at a time: files share their worker's modules, and each stack's functions
 * are built anew for it (functions/once.ts, docs/testing.md#speed).
 *
 * The scheduled functions (sweepers) run only when a test invokes them (test/support/sweepers.ts), unless the file
 * asks for their timers (`schedules: true`): every 5 s they took an idle stack from 2% to about 10% of a core, for
 * the whole life of every file, and they find nothing a test's shifted clock made due (docs/testing.md#speed).
 */
export async function startTestStack(options: Omit<LocalStackOptions, 'port'> = {}): Promise<TestStack> {
  const stack = await startLocalStack({ port: 0, schedules: false, ...options });
  return {
    ...stack,
    issueKey: (account, mode) =>
      issueApiKey({ keys: apiKeyRepository(), secrets: signingSecretStore() }, account, mode),
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key) headers.authorization = `Bearer ${options.key}`;
      let body = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
  };
}
