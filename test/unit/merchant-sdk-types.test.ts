import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SDK_TYPES_FILE, sdkTypes } from '../../lib/openapi/sdk-types.ts';

describe("the merchant SDK's types", () => {
  it('are the ones generated from the current OpenAPI document (run `npm run openapi` after changing the API)', async () => {
    expect(readFileSync(SDK_TYPES_FILE, 'utf8')).toBe(await sdkTypes());
  });
});
