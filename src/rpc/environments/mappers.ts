import type { EnvironmentView } from "../../domain/environments/service.js";
import { create, fromJson, type JsonObject } from "@bufbuild/protobuf";
import { EnvironmentSettingsSchema, KycFieldSchema } from "../../gen/sigil/environments/v0/environments_pb.js";
import { ts } from "../mappers.js";

/** Fields collected from end users that are unique per environment and verified with a one-time code. */
const VERIFIED_FIELDS = new Set(["email", "phoneNumber"]);

/** The settings message: the stored document plus kyc, the client's view of sdk.collectUserData. */
export function toEnvironmentSettings(settings: EnvironmentView["settings"]) {
  // Stored in the message's own JSON form; fields a newer version dropped are ignored.
  const message = fromJson(EnvironmentSettingsSchema, settings as unknown as JsonObject, { ignoreUnknownFields: true });
  const collect = (settings.sdk.collectUserData ?? {}) as Record<string, { enabled?: boolean; required?: boolean }>;
  message.kyc = Object.entries(collect).map(([name, rule]) =>
    create(KycFieldSchema, {
      name,
      enabled: rule?.enabled ?? false,
      required: rule?.required ?? false,
      unique: VERIFIED_FIELDS.has(name),
      verify: VERIFIED_FIELDS.has(name),
    }),
  );
  return message;
}

export function toEnvironment(e: EnvironmentView) {
  return {
    id: e.id,
    projectId: e.projectId,
    organizationId: e.organizationId,
    name: e.name,
    settings: toEnvironmentSettings(e.settings),
    createdAt: ts(e.createdAt),
    updatedAt: ts(e.updatedAt),
  };
}
