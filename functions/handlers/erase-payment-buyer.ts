import { accountSettingsRepository, now, paymentRepository, personalDataStore } from '../dependencies.ts';
import { apiAudit } from '../http/api/api-audit.ts';
import { apiHandler, json } from '../http/api/api-handler.ts';
import { eraseBuyerOnRequest } from '../use-cases/personal-data.ts';

/** DELETE /v1/payments/{id}/buyer: erases the buyer's details everywhere we hold them (docs/security.md). */
export const handler = apiHandler({ audit: apiAudit, body: 'none' }, async ({ principal, event }) => {
  const erasure = await eraseBuyerOnRequest(
    {
      payments: paymentRepository(),
      personalData: personalDataStore(),
      settings: accountSettingsRepository(),
      now,
    },
    principal,
    event.pathParameters?.id ?? '',
  );
  return json(200, erasure);
});
