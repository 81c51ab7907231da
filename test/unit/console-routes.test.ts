import { describe, expect, it } from 'vitest';
import { CONSOLE_ROLES, mayPerform } from '../../functions/domain/console-access.ts';
import { ACTION_OF, SESSION_ACTION_OF } from '../../functions/http/console/router.ts';
import { routes } from '../../functions/http/routes.ts';

const consoleRoutes = routes
  .filter((route) => route.handler === 'console')
  .map((route) => `${route.method} ${route.path}`);

describe('console routes and roles', () => {
  it('check a role for every change: each console POST but signing in and out names its action', () => {
    const posts = consoleRoutes.filter((route) => route.startsWith('POST '));
    const unchecked = posts.filter((route) => !(route in ACTION_OF));

    expect(unchecked.sort()).toEqual(['POST /console/sign-in', 'POST /console/sign-out']);
    expect(Object.keys(ACTION_OF).filter((route) => !consoleRoutes.includes(route))).toEqual([]);
  });

  it('audit every POST but signing in (which records itself): each names what the audit log records it as', () => {
    const posts = consoleRoutes.filter((route) => route.startsWith('POST '));
    const unaudited = posts.filter((route) => !(route in ACTION_OF) && !(route in SESSION_ACTION_OF));

    expect(unaudited).toEqual(['POST /console/sign-in']);
  });

  it('let admins do everything, finance refund, export and cancel subscriptions, and viewers change nothing but their mode', () => {
    const allowed = Object.fromEntries(
      CONSOLE_ROLES.map((role) => [
        role,
        [...new Set(Object.values(ACTION_OF))].filter((a) => mayPerform(role, a)).sort(),
      ]),
    );

    expect(allowed.admin).toEqual([...new Set(Object.values(ACTION_OF))].sort());
    expect(allowed.finance).toEqual(['export.read', 'mode.switch', 'refund.create', 'subscription.cancel']);
    expect(allowed.viewer).toEqual(['mode.switch']);
  });
});
