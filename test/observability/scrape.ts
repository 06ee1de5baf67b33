/** A Prometheus text scrape read into samples: `name{labels} value` lines, and the names its # TYPE lines declare. */
export interface Scrape {
  text: string;
  /** Every metric name present: declared by # TYPE, or sampled (a histogram's _bucket/_sum/_count included). */
  names: Set<string>;
  /** The value of the sample `name` whose labels include `labels`, summed over the samples that match. */
  value(name: string, labels?: Record<string, string>): number;
}

export async function scrape(url: string): Promise<Scrape> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return parseScrape(await res.text());
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseScrape(text: string): Scrape {
  const names = new Set<string>();
  const samples: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("# TYPE ")) {
      names.add(line.split(" ")[2]!);
      continue;
    }
    if (line.startsWith("#") || !line.trim()) continue;
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? "").matchAll(LABEL)) labels[l[1]!] = l[2]!;
    names.add(m[1]!);
    samples.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return {
    text,
    names,
    value(name, want = {}) {
      return samples
        .filter((s) => s.name === name && Object.entries(want).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    },
  };
}
