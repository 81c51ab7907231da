import { z } from 'zod';

/**
 * An integer of a 32-bit field: clients map it to their int32 type. In a file of its own so that every response
 * schema file can take it, including those response-schemas.ts imports.
 */
export const int32 = (minimum: number, maximum = 2 ** 31 - 1) =>
  z.int().min(minimum).max(maximum).meta({ format: 'int32' });
