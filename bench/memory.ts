// Resident set size of another process, from /proc (Linux), sampled on a timer for the peak.
import { readFileSync } from 'node:fs';

export function readRssBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface RssSampler {
  peakBytes(): number;
  stop(): void;
}

export function sampleRss(pid: number, intervalMs = 100): RssSampler {
  let peak = readRssBytes(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, readRssBytes(pid) ?? 0);
  }, intervalMs);
  timer.unref();
  return { peakBytes: () => peak, stop: () => clearInterval(timer) };
}

export const toMiB = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;
