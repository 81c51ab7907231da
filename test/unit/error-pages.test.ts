import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { errorPage } from '../../functions/http/html-handler.ts';

const event = (acceptLanguage: string) =>
  ({
    headers: { 'accept-language': acceptLanguage },
    requestContext: { requestId: 'req-1', http: { method: 'GET' } },
  }) as unknown as APIGatewayProxyEventV2;

describe("a passing failure's page (503 with Retry-After)", () => {
  it.each([
    ['en', 'Temporarily unavailable'],
    ['nl', 'Tijdelijk niet beschikbaar'],
    ['de', 'Vorübergehend nicht verfügbar'],
    ['fr', 'Temporairement indisponible'],
    ['es', 'No disponible temporalmente'],
  ])('speaks the buyer’s language (%s)', async (language, title) => {
    const page = await errorPage(503, event(language), 1);
    expect(page.statusCode).toBe(503);
    expect(page.headers?.['Retry-After']).toBe('1');
    expect(page.body).toContain(`<html lang="${language}">`);
    expect(page.body).toContain(`<h1>${title}</h1>`);
  });
});
