// Statistics for the bench scripts (no side effects: safe to import).

/**
 * Theil–Sen slope of y over x: the median of the slopes between every pair of samples. RSS is a
 * saw-tooth (flat plateaus, then a dip of 20–40 MiB when the collector returns pages, climbing back
 * within a minute or two); a least-squares line through 15 minutes of that follows wherever the
 * dips happen to fall (−9.8 and +8.2 %/h in one quiet run whose plateaus moved by 0 and 3 MiB),
 * where the median of pairwise slopes follows the plateaus.
 */
export function theilSen(xs: number[], ys: number[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < xs.length; i++)
    for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j]! - ys[i]!) / (xs[j]! - xs[i]!));
  if (slopes.length === 0) return NaN;
  slopes.sort((a, b) => a - b);
  const m = slopes.length >> 1;
  return slopes.length % 2 ? slopes[m]! : (slopes[m - 1]! + slopes[m]!) / 2;
}
