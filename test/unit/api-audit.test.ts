import { describe, expect, it } from 'vitest';
import { AUDITED_ROUTES, UNAUDITED_ROUTES } from '../../functions/http/api/api-audit.ts';
import { routes } from '../../functions/http/routes.ts';

describe('the audit log of the API (docs/console.md#audit-log)', () => {
  it('records every route of the API that changes something, but those it leaves out for a reason', () => {
    const changes = routes
      .filter((route) => route.path.startsWith('/v1/') && !['GET', 'HEAD'].includes(route.method))
      .map((route) => `${route.method} ${route.path}`);

    expect(changes.filter((route) => !AUDITED_ROUTES[route] === !UNAUDITED_ROUTES[route])).toEqual([]);
    expect([...Object.keys(AUDITED_ROUTES), ...Object.keys(UNAUDITED_ROUTES)].sort()).toEqual(changes.sort());
  });
});
