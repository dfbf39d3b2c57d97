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

/**
 * Proportional set size (Linux 4.14+): each shared page divided among the processes mapping it, so
 * summing it over a process tree does not count twice the node binary that npm's node and the
 * app's node both map, as summing RSS does.
 */
export function readPssBytes(pid: number): number | undefined {
  try {
    const m = /^Pss:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
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

/** CPU time (user + system) another process has used so far, in ms, from /proc/<pid>/stat. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}
