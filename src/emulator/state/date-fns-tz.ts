// date-fns-tz on first use, not at start: the app's src/domain/date-fns-tz.ts, copied (the emulator
// stands alone). Importing it makes ICU load its time-zone data and loads all of date-fns.
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
export const getTimezoneOffset: typeof DateFnsTz.getTimezoneOffset = (...args) => dateFnsTz().getTimezoneOffset(...args);
