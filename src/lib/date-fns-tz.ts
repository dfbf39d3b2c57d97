// date-fns-tz, loaded on first use instead of at start. Evaluating its module builds an
// Intl.DateTimeFormat with a time zone (a feature check), which makes ICU read its time-zone and
// en-US calendar data (~5 MiB resident), and it imports all of date-fns (300 modules): memory that a
// process which has not formatted a zoned date yet does without (docs/operations.md, Idle memory). The same functions with the same signatures; the package's ES
// module build is loaded (require of an ES module, Node >= 20.19), so it shares date-fns' modules
// with the rest of the process. In src/lib: an adapter of a package, knowing nothing of the app, so
// the app, the emulator and the simulator (which otherwise stand alone) share it.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import type * as DateFnsTz from 'date-fns-tz';

let loaded: typeof DateFnsTz | undefined;

function dateFnsTz(): typeof DateFnsTz {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  loaded = require(join(dirname(require.resolve('date-fns-tz/package.json')), 'dist/esm/index.js')) as typeof DateFnsTz;
  return loaded;
}

export const formatInTimeZone: typeof DateFnsTz.formatInTimeZone = (...args) => dateFnsTz().formatInTimeZone(...args);
export const fromZonedTime: typeof DateFnsTz.fromZonedTime = (...args) => dateFnsTz().fromZonedTime(...args);
export const getTimezoneOffset: typeof DateFnsTz.getTimezoneOffset = (...args) =>
  dateFnsTz().getTimezoneOffset(...args);
