// /metrics is not public (security issue, finding 8): it is served only on METRICS_PORT, bound to
// 127.0.0.1 by default, and the port that faces Slack answers 404 for it.
import { describe, expect, it } from 'vitest';

import { loadConfig } from '../../src/config/index.js';
import { useAppPerTest } from '../support/app.js';
import { REQUIRED_ENV } from '../support/config.js';

const e2e = useAppPerTest({ app: { tuning: { approvalsSweepMs: 0 } } });

describe('metrics port', () => {
  it('the public port has no /metrics; the metrics port (loopback) has it', async () => {
    expect((await fetch(`${e2e.stack.app.url}/metrics`)).status).toBe(404);
    const metricsUrl = e2e.stack.app.metricsUrl!;
    expect(new URL(metricsUrl).hostname).toBe('127.0.0.1');
    expect(metricsUrl).not.toBe(e2e.stack.app.url);
    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('kudos_');
  });

  it('defaults to 127.0.0.1:9464; METRICS_PORT and METRICS_HOST change it', () => {
    expect(loadConfig(REQUIRED_ENV)).toMatchObject({ metricsPort: 9464, metricsHost: '127.0.0.1' });
    expect(loadConfig({ ...REQUIRED_ENV, METRICS_PORT: '9100', METRICS_HOST: '0.0.0.0' })).toMatchObject({
      metricsPort: 9100,
      metricsHost: '0.0.0.0',
    });
    expect(() => loadConfig({ ...REQUIRED_ENV, METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
  });
});
