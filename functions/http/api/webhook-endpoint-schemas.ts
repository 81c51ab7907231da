import type { Mode } from '../../domain/principal.ts';
import { MAX_URL_LENGTH, type UrlPolicy, urlProblem } from '../../domain/urls.ts';
import { EVENT_RETENTION_MS } from '../../domain/webhook.ts';
import {
  ALL_EVENTS,
  ENDPOINT_STATUSES,
  MAX_WEBHOOK_ENDPOINTS,
  SUBSCRIBABLE_EVENT_TYPES,
} from '../../domain/webhook-endpoint.ts';
import * as z from '../../zod.ts';

// Apart from schemas.ts so that the endpoint handlers carry only their own schemas.

export const MAX_ENDPOINT_DESCRIPTION_LENGTH = 255;
/** Every subscribable type once, and `*`: longer lists only repeat. */
export const MAX_ENABLED_EVENTS = SUBSCRIBABLE_EVENT_TYPES.length + 1;

/** The same URL rules as a link's `webhook_url` (docs/api.md#validation). */
const endpointUrl = (policy: UrlPolicy) =>
  z.string().check(
    z.maxLength(MAX_URL_LENGTH),
    (ctx) => {
      const problem = urlProblem(ctx.value, policy);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
    },
    z.meta({ format: 'uri', description: 'Where the service POSTs signed events.' }),
  );

const enabledEvents = () =>
  z.array(z.enum([ALL_EVENTS, ...SUBSCRIBABLE_EVENT_TYPES])).check(
    z.minLength(1),
    z.maxLength(MAX_ENABLED_EVENTS),
    z.meta({
      description:
        'The event types this endpoint receives; `["*"]` for every type, including types added later.',
    }),
  );

const description = () =>
  z.nullish(
    z
      .string()
      .check(
        z.maxLength(MAX_ENDPOINT_DESCRIPTION_LENGTH),
        z.meta({ description: 'For you; never sent anywhere.' }),
      ),
  );

function createSchema(policy: UrlPolicy) {
  return z.strictObject({
    url: endpointUrl(policy),
    enabled_events: enabledEvents(),
    description: description(),
  });
}

function updateSchema(policy: UrlPolicy) {
  return z.strictObject({
    url: z.optional(endpointUrl(policy)),
    enabled_events: z.optional(enabledEvents()),
    description: description(),
    status: z.optional(
      z.enum(ENDPOINT_STATUSES).check(
        z.meta({
          description:
            '`disabled` stops deliveries to it (those under way end as failed); `enabled` resumes them for new events.',
        }),
      ),
    ),
  });
}

const cache = new Map<string, unknown>();
function perPolicy<T>(name: string, build: (policy: UrlPolicy) => T, mode: Mode, allowPrivate: boolean): T {
  const key = `${name}:${mode}:${allowPrivate}`;
  if (!cache.has(key)) {
    cache.set(
      key,
      build({ allowHttp: mode === 'test', allowPrivateTargets: mode === 'test' && allowPrivate }),
    );
  }
  return cache.get(key) as T;
}

/** `POST /v1/webhook-endpoints`: http and private targets as for a link's `webhook_url` of the same mode. */
export const createWebhookEndpointRequest = (mode: Mode, allowPrivateTargets: boolean) =>
  perPolicy('create', createSchema, mode, allowPrivateTargets);

/** `PATCH /v1/webhook-endpoints/{id}` (JSON merge patch): the given fields change. */
export const updateWebhookEndpointRequest = (mode: Mode, allowPrivateTargets: boolean) =>
  perPolicy('update', updateSchema, mode, allowPrivateTargets);

/** `POST /v1/webhook-endpoints/{id}/recover`: from when, within the events API's 30 days and not ahead. */
export const recoverRequest = () =>
  z.strictObject({
    since: z.iso.datetime({ offset: true }).check(
      z.maxLength(35),
      (ctx) => {
        const at = Date.parse(ctx.value);
        if (at < Date.now() - EVENT_RETENTION_MS) {
          ctx.issues.push({ code: 'custom', message: 'Must be within the last 30 days.', input: ctx.value });
        } else if (at > Date.now()) {
          ctx.issues.push({ code: 'custom', message: 'Must not be in the future.', input: ctx.value });
        }
      },
      z.meta({
        description: 'Re-send what the endpoint never acknowledged among the events created since then.',
      }),
    ),
  });

export { MAX_WEBHOOK_ENDPOINTS };
