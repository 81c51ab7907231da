import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { iso4217Module } from './iso-4217.ts';

/** `npm run currencies`: regenerates functions/domain/iso-4217.ts from the `currency-codes` data. */
const file = join(import.meta.dirname, '..', 'functions', 'domain', 'iso-4217.ts');
writeFileSync(file, iso4217Module());
console.log(`wrote ${file}`);
