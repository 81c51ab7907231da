import type { EventStatus } from '../../../domain/webhook.ts';

/** The webhooks page, an event's and an endpoint's; the API's own values beside their words where a developer needs them. */
export interface WebhookTexts {
  title: string;
  notices: Record<'enabled' | 'disabled' | 'redelivered' | 'recovering', string>;
  /** A test event's outcome: the status code (or `noAnswer`) with the delivery's own error, and its time. */
  testAnswered: (eventId: string, endpointId: string, answer: string, ms: number) => string;
  testPending: (eventId: string, endpointId: string) => string;
  /** What a test event's endpoint answered when it gave no status code. */
  nothing: string;
  secretShown: (url: string) => string;
  previousSecretUntil: (until: string) => string;
  endpoints: string;
  endpoint: string;
  url: string;
  events: string;
  status: string;
  actions: string;
  enable: string;
  disable: string;
  enableLabel: (id: string) => string;
  disableLabel: (id: string) => string;
  rotate: string;
  rotateLabel: (id: string) => string;
  sendTest: string;
  sendTestLabel: (id: string) => string;
  recoverSinceLabel: (id: string) => string;
  recover: string;
  recoverLabel: (id: string) => string;
  noEndpoints: string;
  addTitle: string;
  description: string;
  add: string;
  latestEvents: string;
  event: string;
  type: string;
  link: string;
  delivery: string;
  attempts: string;
  noAnswer: string;
  noAttempts: string;
  redeliver: string;
  noEvents: string;
  eventTitle: (id: string) => string;
  created: string;
  deliveries: string;
  to: string;
  linkWebhookUrl: string;
  noneYet: string;
  sentNowhere: string;
  /** The columns of an event's recipients: who, and their delivery's next retry. */
  recipient: string;
  nextRetry: string;
  /** A link's event whose link has no `webhook_url`: nothing was sent there, which is not a failure. */
  noneSet: string;
  /** A delivery's status, in words (the API's `pending`, `delivered`, `failed`). */
  deliveryStatus: Record<EventStatus, string>;
  /** The attempts of a delivery: how many, and the latest one's answer. */
  attemptsSoFar: (count: number, latest: string) => string;
  redeliverTo: (eventId: string, recipient: string) => string;
  endpointTitle: (url: string) => string;
  /** The endpoint's deliveries among the latest events, newest first. */
  recentDeliveries: (events: number) => string;
  noDeliveries: string;
}
