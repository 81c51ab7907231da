import { config } from '../config.ts';
import { linkRepository, now } from '../dependencies.ts';
import { ValidationError } from '../domain/errors.ts';
import { decodeCursor, encodeCursor } from '../domain/page-cursor.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { gatherMetadataParameters, listPaymentLinksQuery } from '../http/api/list-query.ts';
import { type PaymentLinkListResource, toResource } from '../http/api/resources.ts';
import { validate } from '../http/validate.ts';
import { listPaymentLinks } from '../use-cases/payment-links.ts';

/** GET /v1/payment-links?limit=&cursor=&status=&metadata[key]= */
export const handler = apiHandler({ body: 'none' }, async ({ principal, event }) => {
  const query = validate(
    listPaymentLinksQuery(),
    gatherMetadataParameters(event.queryStringParameters ?? {}),
  );
  const after = query.cursor === undefined ? undefined : decodeCursor(principal, query.cursor);
  if (query.cursor !== undefined && after === undefined) {
    throw new ValidationError([
      { pointer: '/cursor', detail: 'Not a cursor this API key was given: pass `next_cursor` unchanged.' },
    ]);
  }
  const page = await listPaymentLinks({ links: linkRepository(), now }, principal, {
    limit: query.limit,
    after,
    status: query.status,
    metadata: query.metadata,
  });
  const at = now();
  return json(200, {
    data: page.links.map((link) => toResource(link, config().CHECKOUT_BASE, at)),
    next_cursor: page.next ? encodeCursor(principal, page.next) : null,
  } satisfies PaymentLinkListResource);
});
