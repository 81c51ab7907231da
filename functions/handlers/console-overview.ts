import {
  armCounterStore,
  books,
  consoleStore,
  linkRepository,
  now,
  observedOutcomes,
  pspDirectory,
} from '../dependencies.ts';
import { handleOverview } from '../http/console/overview.ts';
import { htmlHandler } from '../http/html-handler.ts';

/** The console's overview page with its charts (docs/console.md#overview): Vega stays out of the console function. */
export const handler = htmlHandler((event) =>
  handleOverview(event, {
    store: consoleStore(),
    books: books(),
    links: linkRepository(),
    psps: pspDirectory(),
    observed: observedOutcomes(),
    arms: armCounterStore(),
    now,
  }),
);
