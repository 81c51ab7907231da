import { askedDetails, type BuyerDetail, type Collect } from '../buyer.ts';
import type { FormTables } from './tables.ts';

// Their shape lies beside the tables, which take it from there: from here, it would be a circle.
export type { FormTables } from './tables.ts';

/** Loads the form tables (tables.ts, a chunk of their own): once per container, as any module. */
export const loadFormTables = async (): Promise<FormTables> => (await import('./tables.ts')).FORM_TABLES;

/** Whether reading the form of a link that asks `collect` may need the tables: it asks a phone number or an address. */
export const readingNeedsTables = (collect: Collect | null): boolean =>
  collect !== null && askedDetails(collect).some((detail) => detail !== 'email');

/** Whether drawing a form that asks `details` needs them: an address (its countries, and whether a postal code is). */
export const drawingNeedsTables = (details: readonly BuyerDetail[]): boolean =>
  details.includes('billing_address') || details.includes('shipping_address');

/** The tables a rule needs; loaded, by the rules above, before any form that needs them is read or drawn. */
export function loadedTables(tables: FormTables | undefined): FormTables {
  if (!tables) throw new Error('No form tables loaded for a form that asks a phone number or an address');
  return tables;
}
