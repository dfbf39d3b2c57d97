// Probabilistic faults (PUT /_emulator/faults/random) for chaos runs: a share of matching requests
// get a fault drawn from a weighted mix; a seed makes the draw repeatable; reset turns them off.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { RandomFaults, RandomFaultsSchema } from '../../src/emulator/state/random-faults.js';
import { startTestEmulator, type TestEmulator } from '../support/emulator.js';
import { getToken, http } from './helpers.js';

let emu: TestEmulator;
let token: string;

beforeAll(async () => {
  emu = await startTestEmulator({ EMULATOR_BACKGROUND: 'off' });
  token = await getToken(emu.url);
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.reset();
});

const setRandom = (config: unknown) => http(`${emu.url}/_emulator/faults/random`, { method: 'PUT', json: config });
const balance = () => http(`${emu.url}/api/v1/balance`, { token });

describe('random faults over HTTP', () => {
  it('faults every matching request at probability 1, with the injected envelope, and counts them', async () => {
    expect((await setRandom({ probability: 1, path: '^/api/v1/balance$', kinds: [{ status: 503 }] })).status).toBe(200);
    const res = await balance();
    expect([res.status, res.body.error.code, res.body.error.details]).toEqual([
      503,
      'SERVICE_UNAVAILABLE',
      { injected: true },
    ]);
    // Not matching the path: untouched.
    expect((await http(`${emu.url}/api/v1/catalog/choice-cards`, { token })).status).toBe(200);
    const state = await http(`${emu.url}/_emulator/faults/random`);
    expect(state.body.seen).toBe(1);
    expect(state.body.injected).toEqual({ 'status:503': 1 });
  });

  it('a 429 kind carries the rate-limit headers; a drop kind cuts the connection', async () => {
    await setRandom({ probability: 1, kinds: [{ status: 429 }] });
    const limited = await balance();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    await setRandom({ probability: 1, kinds: [{ drop: true }] });
    await expect(balance()).rejects.toThrow();
  });

  it('is off at probability 0, after DELETE and after reset', async () => {
    await setRandom({ probability: 0 });
    expect((await balance()).status).toBe(200);
    await setRandom({ probability: 1, kinds: [{ status: 500 }] });
    expect((await http(`${emu.url}/_emulator/faults/random`, { method: 'DELETE' })).body.injected).toEqual({});
    expect((await balance()).status).toBe(200);
    await setRandom({ probability: 1, kinds: [{ status: 500 }] });
    await emu.reset();
    expect((await balance()).status).toBe(200);
  });

  it('refuses a malformed configuration with 400', async () => {
    expect((await setRandom({ probability: 2 })).status).toBe(400);
    expect((await setRandom({ probability: 0.5, kinds: [{ weight: 1 }] })).status).toBe(400);
    expect((await setRandom({ probability: 0.5, path: '(' })).status).toBe(400);
  });
});

describe('RandomFaults', () => {
  it('with a seed, the same requests get the same faults; the share injected follows the probability', () => {
    fc.assert(
      fc.property(fc.integer(), fc.double({ min: 0.1, max: 0.9, noNaN: true }), (seed, probability) => {
        const config = RandomFaultsSchema.parse({ probability, seed });
        const a = new RandomFaults();
        const b = new RandomFaults();
        a.set(config);
        b.set(config);
        const n = 2000;
        let injected = 0;
        for (let i = 0; i < n; i++) {
          const fa = a.take('POST', '/api/v1/orders/choice-cards');
          expect(b.take('POST', '/api/v1/orders/choice-cards')).toEqual(fa);
          if (fa) injected++;
        }
        // 2000 draws: the share stays within 0.07 of p (more than 6 standard deviations).
        expect(Math.abs(injected / n - probability)).toBeLessThan(0.07);
        // Every kind of the default mix (429, 500, 503, drop, delay) shows up.
        expect(Object.keys(a.state().injected).sort()).toEqual([
          'delay:3000',
          'drop',
          'status:429',
          'status:500',
          'status:503',
        ]);
      }),
      { numRuns: 30 },
    );
  });
});
