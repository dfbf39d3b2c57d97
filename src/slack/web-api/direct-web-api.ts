// The Slack Web API calls on the `/kudos` path (users.info, views.open) made directly through one
// keep-alive undici pool, without @slack/web-api's queue, retry and debug-redaction layers: those
// cost ~2.5 ms of CPU per call, about 45% of the app's CPU per `/kudos` in the benchmark
// (docs/operations.md). No retries: a trigger_id is single-use and lives 3 s, and a failed users.info
// is asked again by the next request. Errors keep WebClient's shape (`code`, `data.error`,
// `retryAfter`) so that callers handle both alike.
import { Pool } from 'undici';

/**
 * `json`: a JSON body (write methods such as views.open); otherwise form-encoded, which every
 * method accepts (Slack's read methods, such as users.info, take no JSON).
 */
export type DirectWebApiCall = (
  method: string,
  args: Record<string, unknown>,
  encoding: 'json' | 'form',
  token?: string,
) => Promise<Record<string, unknown>>;

export interface DirectWebApiOptions {
  /** Base URL of the Web API, ending with a slash (SLACK_API_URL). */
  apiUrl: string;
  /** The default token; a call may name its own (distribution mode: the workspace's). */
  token?: string | undefined;
  /** Per request (headers and body). Default 3 s, Slack's own deadline for a trigger_id. */
  timeoutMs?: number;
}

export interface DirectWebApi {
  call: DirectWebApiCall;
  close(): Promise<void>;
}

export function createDirectWebApi(opts: DirectWebApiOptions): DirectWebApi {
  const base = new URL(opts.apiUrl);
  const timeout = opts.timeoutMs ?? 3000;
  const pool = new Pool(base.origin, { connections: 32, keepAliveTimeout: 30_000 });
  const prefix = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return {
    async call(method, args, encoding, token = opts.token) {
      if (!token) throw new Error(`no Slack token for ${method}`);
      const json = encoding === 'json';
      const res = await pool.request({
        method: 'POST',
        path: `${prefix}${method}`,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': json ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded',
        },
        body: json
          ? JSON.stringify(args)
          : new URLSearchParams(
              Object.entries(args).map(([k, v]): [string, string] => [
                k,
                typeof v === 'string' ? v : JSON.stringify(v),
              ]),
            ).toString(),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      if (res.statusCode === 429) {
        await res.body.dump();
        const retryAfter = Number(res.headers['retry-after']) || 1;
        throw Object.assign(new Error(`A rate limit was exceeded (${method}), retry after ${retryAfter} s`), {
          code: 'slack_webapi_rate_limited_error',
          retryAfter,
        });
      }
      if (res.statusCode >= 300) {
        await res.body.dump();
        throw Object.assign(new Error(`An HTTP protocol error occurred: statusCode = ${res.statusCode}`), {
          code: 'slack_webapi_http_error',
          statusCode: res.statusCode,
        });
      }
      const data = (await res.body.json()) as Record<string, unknown> & { ok?: boolean; error?: string };
      if (!data.ok)
        throw Object.assign(new Error(`An API error occurred: ${data.error}`), {
          code: 'slack_webapi_platform_error',
          data,
        });
      return data;
    },
    close: () => pool.close(),
  };
}
