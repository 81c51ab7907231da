import { describe, expect, it } from 'vitest';
import { isCountryCode } from '../../functions/domain/buyer.ts';

describe('isCountryCode', () => {
  it('knows every ISO 3166-1 country and territory a buyer can live in, in capitals', () => {
    for (const code of ['NL', 'GB', 'US', 'XK', 'GS', 'AQ', 'CW', 'SX', 'BQ'])
      expect(isCountryCode(code)).toBe(true);
  });

  it('refuses aliases, groupings, pseudo-regions, lower case and anything else', () => {
    for (const code of ['UK', 'EU', 'UN', 'ZZ', 'QO', 'XA', 'EA', 'IC', 'nl', 'N', 'NLD', '', 'AA', 'Ü1']) {
      expect(isCountryCode(code)).toBe(false);
    }
  });
});
