import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('is given by the handler of every route it records, and only by those (the others carry none of it)', () => {
    const handlerOf = (route: (typeof routes)[number]) =>
      readFileSync(
        join(import.meta.dirname, '..', '..', 'functions', 'handlers', `${route.handler}.ts`),
        'utf8',
      );
    const apiRoutes = routes.filter((route) => route.path.startsWith('/v1/'));
    const audited = apiRoutes.filter((route) => AUDITED_ROUTES[`${route.method} ${route.path}`]);
    const others = apiRoutes.filter((route) => !audited.some((one) => one.handler === route.handler));

    expect(
      audited.filter((route) => !handlerOf(route).includes('audit: apiAudit')).map((route) => route.handler),
    ).toEqual([]);
    expect(
      others.filter((route) => handlerOf(route).includes('apiAudit')).map((route) => route.handler),
    ).toEqual([]);
  });
});
