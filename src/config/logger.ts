// Structured logs: one JSON object per line on stdout. Fields whose names look secret are redacted.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /token|secret|password|authorization|signature/i;

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
    write(JSON.stringify({ ts: new Date().toISOString(), level: lvl, msg, ...redact(base), ...redact(fields ?? {}) }));
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

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    if (SECRET_KEY.test(key)) out[key] = '[redacted]';
    else if (value instanceof Error) out[key] = { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
    else out[key] = value;
  }
  return out;
}
