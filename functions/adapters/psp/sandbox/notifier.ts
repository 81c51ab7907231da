import { CALL_BUDGETS, type CallBudget } from '../../../domain/call-budgets.ts';
import { BUILT_IN_SANDBOX_ID } from '../../../domain/connection.ts';
import { logger } from '../../../logger.ts';
import type { SandboxSession } from '../../../ports/sandbox-sessions.ts';
import {
  SANDBOX_COMPLETED,
  SANDBOX_FAILED,
  SANDBOX_SIGNATURE_HEADER,
  type SandboxNotificationBody,
  signSandboxPayload,
} from './notifications.ts';

/**
 * The sandbox's outgoing side: it tells the service a session completed through the same public endpoint a
 * real PSP uses (`POST {base_url}/psp/sandbox/notifications/{connection id}`), signed with the sandbox's secret. Real PSPs
 * retry for days; the sandbox retries briefly and reports whether the service acknowledged (2xx).
 */
export class SandboxNotifier {
  private readonly notificationBase: string;
  private readonly signingSecret: () => Promise<string>;
  private readonly now: () => Date;
  readonly budget: CallBudget;

  constructor(options: {
    baseUrl: string;
    signingSecret: () => Promise<string>;
    now: () => Date;
    budget?: CallBudget;
  }) {
    this.notificationBase = `${options.baseUrl}/psp/sandbox/notifications`;
    this.signingSecret = options.signingSecret;
    this.now = options.now;
    this.budget = options.budget ?? CALL_BUDGETS.sandboxNotification;
  }

  /** Tells the service the session completed (Pay) or failed (Decline); true once acknowledged (2xx). */
  async notify(session: SandboxSession): Promise<boolean> {
    const body: SandboxNotificationBody = {
      type: session.status === 'failed' ? SANDBOX_FAILED : SANDBOX_COMPLETED,
      session_id: session.id,
      link_id: session.link_id,
      mode: session.mode,
      created: Math.floor(this.now().getTime() / 1000),
    };
    const raw = JSON.stringify(body);
    const secret = await this.signingSecret();
    for (let attempt = 1; attempt <= this.budget.tries; attempt++) {
      try {
        const url = `${this.notificationBase}/${session.connection_id ?? BUILT_IN_SANDBOX_ID}`;
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [SANDBOX_SIGNATURE_HEADER]: signSandboxPayload(
              secret,
              raw,
              Math.floor(this.now().getTime() / 1000),
            ),
          },
          body: raw,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.budget.timeoutMs),
        });
        await response.body?.cancel();
        if (response.ok) return true;
        if (response.status < 500) break;
      } catch (error) {
        logger.warn('Sandbox notification attempt failed', { session_id: session.id, attempt, error });
      }
    }
    logger.error('Sandbox notification not acknowledged', { session_id: session.id });
    return false;
  }
}
