// Structured logs: one JSON object per line on stdout. Fields whose names look secret are redacted,
// at any depth, and so are values that look like credentials (Slack tokens, bearer tokens).
// withLogContext() adds fields (e.g. the HTTP request id) to every line logged inside a request,
// including the work its listeners do after the ack.
import { AsyncLocalStorage } from 'node:async_hooks';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /token|secret|password|authorization|signature/i;
const SECRET_VALUE = /\bxox[a-z]-[A-Za-z0-9-]+|\bBearer\s+[A-Za-z0-9._~+/=-]+/g;
const MAX_DEPTH = 4;

const logContext = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` added to every log line written inside it (and inside what it awaits). */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  return logContext.run({ ...logContext.getStore(), ...fields }, fn);
}

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; default process.stdout. Tests pass a collector. */
  write?: (line: string) => void;
  base?: LogFields;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? parseLevel(process.env.LOG_LEVEL) ?? 'info';
  const write = opts.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const base = opts.base ?? {};
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const context = logContext.getStore();
    write(
      JSON.stringify({
        ts: new Date().toISOString(),
        level: lvl,
        msg,
        ...(context ? redact(context) : {}),
        ...redact(base),
        ...redact(fields ?? {}),
      }),
    );
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger({ level, write, base: { ...base, ...fields } }),
  };
}

function parseLevel(value: string | undefined): LogLevel | undefined {
  return value && value in ORDER ? (value as LogLevel) : undefined;
}

function redact(fields: LogFields, depth = 0): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = SECRET_KEY.test(key) ? '[redacted]' : redactValue(value, depth);
  }
  return out;
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value.replace(SECRET_VALUE, '[redacted]');
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message.replace(SECRET_VALUE, '[redacted]'),
      code: (value as { code?: unknown }).code,
    };
  }
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  if (depth >= MAX_DEPTH) return '[truncated]';
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  return redact(value as LogFields, depth + 1);
}
