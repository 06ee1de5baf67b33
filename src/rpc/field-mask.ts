import type { DescField, DescMessage } from "@bufbuild/protobuf";

/**
 * What an update_mask path descends into after a field (AIP-134): its message, "struct" for a
 * google.protobuf.Struct (free-form JSON whose keys are the caller's own), or undefined for a leaf (a scalar,
 * a list, another well-known type). Shared by the REST gateway, which fills a mask from a body, and the
 * handlers that read a mask back.
 */
export type MaskScope = DescMessage | "struct" | undefined;

export function maskScopeOf(field: DescField): MaskScope {
  if (field.fieldKind !== "message") return undefined;
  if (field.message.typeName === "google.protobuf.Struct") return "struct";
  return field.message.typeName.startsWith("google.protobuf.") ? undefined : field.message;
}

/** A field by its proto name or its JSON name, as mask paths and REST bodies may use either. */
export function fieldNamed(schema: DescMessage, name: string): DescField | undefined {
  return schema.fields.find((f) => f.name === name || f.jsonName === name);
}
