import type { DeliveryDecision, StoredEvent } from '../domain/webhook.ts';
import { putMetrics } from '../metrics.ts';

/**
 * What one invocation (one batch) of webhook delivery knows beyond the shared health: its own attempts under way,
 * per endpoint, and its metrics. Built by the handler for each batch, so nothing of it outlives the batch.
 */
export interface Invocation {
  /** Settles when each of this invocation's attempts to the endpoint has its answer recorded. */
  attempts: Map<string, Promise<void>[]>;
  /** Admissions to one endpoint are decided one after another, so records of a batch do not race for a slot. */
  admissions: Map<string, Promise<unknown>>;
  /** The batch's attempts so far, and the delivery latency of each that delivered its event. */
  metrics: { attempts: number; latencies: number[] };
  /** When the batch began (epoch ms): a fan-out reads the endpoints as they were then or later. */
  startedAt: number;
}

export const newInvocation = (now = Date.now()): Invocation => ({
  attempts: new Map(),
  admissions: new Map(),
  metrics: { attempts: 0, latencies: [] },
  startedAt: now,
});

/** Counts one attempt in its batch's metrics; the latency is what the merchant waited, retries included. */
export function countAttempt(
  invocation: Invocation,
  event: StoredEvent,
  decision: DeliveryDecision,
  at: Date,
): void {
  invocation.metrics.attempts++;
  if (decision.status === 'delivered') {
    invocation.metrics.latencies.push(at.getTime() - Date.parse(event.created_at));
  }
}

/**
 * Emits a batch's attempt metrics as one Embedded Metric Format line (counts summed, one latency value per
 * delivered event), rather than a line per attempt: a tenth of the log volume and of the work of writing it.
 */
export function putInvocationMetrics(invocation: Invocation): void {
  const { attempts, latencies } = invocation.metrics;
  if (!attempts) return;
  putMetrics({
    WebhookAttempts: attempts,
    WebhookSuccesses: latencies.length,
    WebhookFailures: attempts - latencies.length,
    ...(latencies.length && { WebhookDeliveryLatency: latencies }),
  });
}
