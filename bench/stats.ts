// Latency statistics for the benchmarks: exact percentiles over recorded samples (nearest rank).
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samplesMs: number[]): LatencySummary {
  if (samplesMs.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN, mean: NaN };
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    count: sorted.length,
    p50: rank(50),
    p99: rank(99),
    max: sorted[sorted.length - 1]!,
    mean: total / sorted.length,
  };
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
