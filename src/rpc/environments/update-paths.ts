import { toJson, type DescMessage, type JsonObject } from "@bufbuild/protobuf";
import { UpdateEnvironmentSettingsRequestSchema, type UpdateEnvironmentSettingsRequest } from "../../gen/sigil/environments/v0/environments_service_pb.js";
import type { SettingsPath } from "../../domain/environments/update.js";
import { badRequest } from "../../errors.js";
import { fieldNamed, maskScopeOf, type MaskScope } from "../field-mask.js";

/** Request fields that are not settings: where the update goes, what it names, and the read-only kyc view. */
const NOT_SETTINGS = new Set(["environment_id", "update_mask", "kyc"]);

/**
 * The settings an update names, by their JSON names: the update_mask's paths (proto or JSON names; the REST
 * gateway fills it from the body), or without a mask every populated field of the request (AIP-134).
 */
export function namedSettings(req: UpdateEnvironmentSettingsRequest): SettingsPath[] {
  const schema = UpdateEnvironmentSettingsRequestSchema;
  const paths = req.updateMask ? req.updateMask.paths.map((p) => jsonPath(schema, p)) : populatedPaths(toJson(schema, req) as JsonObject, []);
  return paths.filter((p) => p.length > 0 && !NOT_SETTINGS.has(fieldNamed(schema, p[0])?.name ?? ""));
}

/** A mask path in JSON names; inside a Struct the keys are the user's own. An unknown field is refused. */
function jsonPath(schema: DescMessage, path: string): string[] {
  const out: string[] = [];
  let current: MaskScope = schema;
  for (const segment of path.split(".")) {
    if (current === "struct") {
      out.push(segment);
      continue;
    }
    const field = current && fieldNamed(current, segment);
    if (!field) throw badRequest("invalid_update_mask", `update_mask names ${path}, which the settings do not have`, { field: "updateMask" });
    out.push(field.jsonName);
    current = maskScopeOf(field);
  }
  return out;
}

/** The leaves of a proto3 JSON value: what a request without a mask populated (an empty object names nothing). */
function populatedPaths(json: JsonObject, prefix: string[]): string[][] {
  return Object.entries(json).flatMap(([key, value]) =>
    value !== null && typeof value === "object" && !Array.isArray(value) ? populatedPaths(value, [...prefix, key]) : [[...prefix, key]],
  );
}
