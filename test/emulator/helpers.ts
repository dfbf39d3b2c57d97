import { afterAll, beforeAll, beforeEach } from 'vitest';

import { startTestEmulator, type TestEmulator } from '../support/emulator.js';

/** Small HTTP helpers for driving the emulator over real HTTP in tests. */
export interface HttpAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = any>(
  url: string,
  init: { method?: string; token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<HttpAnswer<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  const res = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body: body ?? null,
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export type EnvName = 'sandbox' | 'production';

export async function getToken(baseUrl: string, env: EnvName = 'production', scope?: string): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: `${env}-client`,
    client_secret: `${env}-secret`,
  });
  if (scope !== undefined) form.set('scope', scope);
  const res = await http(`${baseUrl}/oauth2/token`, {
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}

/**
 * An API caller. With a fixed token it sends exactly that; with an environment name it fetches a token
 * and fetches a new one when the old has expired (tests advance the clock by days).
 */
export function apiClient(baseUrl: string, tokenOrEnv: string | { env: EnvName }) {
  let token = typeof tokenOrEnv === 'string' ? tokenOrEnv : '';
  const call = async <T = any>(method: string, path: string, json?: unknown): Promise<HttpAnswer<T>> => {
    if (typeof tokenOrEnv !== 'string' && !token) token = await getToken(baseUrl, tokenOrEnv.env);
    const send = () => http<T>(`${baseUrl}/api/v1${path}`, { method, token, ...(json !== undefined ? { json } : {}) });
    const res = await send();
    if (res.status !== 401 || typeof tokenOrEnv === 'string') return res;
    token = await getToken(baseUrl, tokenOrEnv.env);
    return send();
  };
  return {
    get token() {
      return token;
    },
    get: <T = any>(path: string, query?: Record<string, string | number>) =>
      call<T>(
        'GET',
        query
          ? `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`
          : path,
      ),
    post: <T = any>(path: string, json?: unknown) => call<T>('POST', path, json ?? {}),
    put: <T = any>(path: string, json: unknown) => call<T>('PUT', path, json),
    del: <T = any>(path: string) => call<T>('DELETE', path),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

/** One emulator per test file, with background work driven only by clock advances. */
export async function startDeterministicEmulator(env: Record<string, string> = {}): Promise<TestEmulator> {
  return startTestEmulator({ EMULATOR_BACKGROUND: 'off', ...env });
}

/**
 * The usual set-up of an emulator test file: one deterministic emulator for the file, reset before
 * each test, with a production and a sandbox client. Use the handle inside hooks and tests.
 */
export function useEmulator(env: Record<string, string> = {}): {
  readonly emu: TestEmulator;
  readonly api: ApiClient;
  readonly sandbox: ApiClient;
} {
  let emu: TestEmulator | undefined;
  let clients: { api: ApiClient; sandbox: ApiClient } | undefined;
  beforeAll(async () => {
    emu = await startDeterministicEmulator(env);
    clients = { api: apiClient(emu.url, { env: 'production' }), sandbox: apiClient(emu.url, { env: 'sandbox' }) };
  });
  afterAll(() => emu?.close());
  beforeEach(() => emu?.reset());
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useEmulator: use the handle inside hooks and tests');
    return value;
  };
  return {
    get emu() {
      return ready(emu);
    },
    get api() {
      return ready(clients).api;
    },
    get sandbox() {
      return ready(clients).sandbox;
    },
  };
}

let keySeq = 0;
export function key(prefix = 'k'): string {
  return `${prefix}-${process.pid}-${Date.now()}-${keySeq++}`;
}

export function choiceOrder(overrides: Record<string, unknown> = {}) {
  return {
    idempotencyKey: key('choice'),
    productId: 'CC-THANK-YOU',
    emailSetting: { senderName: 'Maya', subject: 'Thanks!', message: 'Great work' },
    recipients: [{ email: 'ann@example.com', amount: 25, firstName: 'Ann' }],
    ...overrides,
  };
}

export function brandedOrder(overrides: Record<string, unknown> = {}) {
  return {
    idempotencyKey: key('branded'),
    productId: 'BR-AMAZON-US',
    emailSetting: { senderName: 'Maya', subject: 'Thanks!' },
    recipients: [{ email: 'bob@example.com', amount: 25 }],
    ...overrides,
  };
}

/** Converts a JSON money amount to cents for exact sums in assertions. */
export const cents = (amount: number) => Math.round(amount * 100);
