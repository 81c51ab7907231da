import { config } from '../config.ts';
import { NotFoundError } from '../domain/errors.ts';
import { isId } from '../domain/ids.ts';
import { qrCodeSvg } from '../http/checkout/qr.ts';
import { htmlHandler } from '../http/html-handler.ts';

/**
 * GET and HEAD {checkout_base}/{id}/qr.svg: the QR code of the link's checkout URL (docs/checkout.md#qr-codes).
 * Public and storeless: the image encodes only our own address for an id of the right shape, so it reads no
 * link (an unknown id gives the QR code of a page that answers 404), carries no PSP SDK, and may be cached.
 */
export const handler = htmlHandler(async (event) => {
  const id = event.pathParameters?.id ?? '';
  if (!isId('pl', id)) throw new NotFoundError('No such payment link.');
  return qrCodeSvg(`${config().CHECKOUT_BASE}/${id}`, event.requestContext.http.method === 'HEAD');
});
