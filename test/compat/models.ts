import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { clientPackageDir } from "./catalogue.js";

/**
 * The client's models as data, read from its declaration files (`src/models/*.d.ts`): for an interface,
 * each property's type expression and whether it is optional; for an enum, its values. Properties are keyed
 * by the name the client reads on the wire, taken from the model's `FromJSONTyped` (`json['wallet_name']`
 * for `walletName`), which is not always the declared name. The generator writes these files in one
 * regular form, so a line-oriented reader is enough and stays in step with the package.
 */
export type ModelSchema =
  | { kind: "object"; properties: Record<string, { type: string; optional: boolean }> }
  | { kind: "enum"; values: string[] }
  | { kind: "alias"; type: string };

export function readClientModels(): Map<string, ModelSchema> {
  const dir = join(clientPackageDir, "src", "models");
  const models = new Map<string, ModelSchema>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".d.ts"))) {
    const name = file.replace(/\.d\.ts$/, "");
    const source = readFileSync(join(dir, file), "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "");
    // A file declares its own model and sometimes enums of its properties beside it (`...AlgEnum`).
    for (const m of source.matchAll(/export declare enum (\w+) \{([\s\S]*?)\n\}/g)) {
      models.set(m[1], { kind: "enum", values: [...m[2].matchAll(/= "([^"]*)"/g)].map((v) => v[1]) });
    }
    if (models.has(name)) continue;
    const iface = source.match(new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`));
    if (iface) {
      const properties: Record<string, { type: string; optional: boolean }> = {};
      // Four-space indented members; an index-signature type spans lines until its closing `};`.
      const wire = wireNames(dir, name);
      for (const m of iface[1].matchAll(/\n {4}(\w+)(\??): ([^\n]*?(?:\{[\s\S]*?\n {4}\})?);/g)) {
        properties[wire.get(m[1]) ?? m[1]] = { type: m[3].replace(/\s+/g, " ").trim(), optional: m[2] === "?" };
      }
      models.set(name, { kind: "object", properties });
      continue;
    }
    const alias = source.match(/export (?:declare )?type \w+ = ([^;]+);/);
    if (alias) models.set(name, { kind: "alias", type: alias[1].trim() });
  }
  return models;
}

/** Declared name -> JSON name of each property, as the model's FromJSONTyped reads it. */
function wireNames(dir: string, name: string): Map<string, string> {
  const names = new Map<string, string>();
  let source: string;
  try {
    source = readFileSync(join(dir, `${name}.js`), "utf8");
  } catch {
    return names;
  }
  const body = source.match(/FromJSONTyped\(json, ignoreDiscriminator\) \{([\s\S]*?)\n\}/)?.[1] ?? "";
  for (const m of body.matchAll(/\n {8}'(\w+)': [^\n]*?json\['([^']+)'\]/g)) names.set(m[1], m[2]);
  return names;
}
