import type { AuditedAction, AuditSubject, ConsoleSession } from '../../domain/console-access.ts';
import type { PageLanguage } from '../../domain/locale.ts';
import type { HtmlEvent } from '../html-handler.ts';

/**
 * One console request, as the routes of functions/http/routes.ts name it (`GET /console/links/{id}`).
 * A file of its own: router.ts and the pages it routes to take it from here, not from each other.
 */
export interface ConsoleRequest {
  event: HtmlEvent;
  route: string;
  https: boolean;
  session: ConsoleSession;
  form: URLSearchParams;
  /** The browser's language among the console's (docs/console.md#languages), for the pages translated so far. */
  language: PageLanguage;
  /**
   * Says the change is made, and what it made (a new link's id): its entry in the audit log, written before the
   * route ran, is settled `succeeded` (a change the route answers without calling this is `unchanged` or `failed`),
   * with `reason` when the user gave one (a refund's), and `about` what the target is beyond its id (a refund's
   * amount and payment).
   */
  audit(action: AuditedAction, target: string | null, reason?: string, about?: AuditSubject): Promise<void>;
}
