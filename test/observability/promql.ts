/**
 * The metric names a PromQL expression reads. Not a full parser: label matchers, strings, range and offset
 * durations and the label lists of by / without / on / ignoring / group_left / group_right are removed
 * first; what is left that names no function, aggregation or keyword is a metric name.
 */
const KEYWORDS = new Set([
  "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "and", "or", "unless",
  "sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values", "group",
  "inf", "nan",
]);

export function metricNamesOf(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, " ") // strings (label values, quantile_over_time args)
    .replace(/\{[^}]*\}/g, " ") // label matchers
    .replace(/\[[^\]]*\]/g, " ") // range and subquery durations
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ") // grouping label lists
    .replace(/\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?/g, " ") // Grafana variables ($__rate_interval)
    .replace(/\boffset\s+\S+/g, " ");
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\()?)/g)) {
    const word = m[0];
    if (m[1] === "(") continue; // a function or aggregation call
    if (KEYWORDS.has(word.toLowerCase())) continue;
    if (/^\d/.test(word)) continue;
    names.add(word);
  }
  return [...names];
}
