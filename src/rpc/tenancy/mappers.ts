import type { OrganizationRecord } from "../../db/repositories/organizations.js";
import type { Member } from "../../db/repositories/tenancy.js";
import type { ProjectRecord } from "../../db/repositories/projects.js";
import type { MfaSettingRecord } from "../../db/repositories/mfa-settings.js";
import type { EnvironmentView } from "../../domain/environments/service.js";
import { create, fromJson, type JsonObject } from "@bufbuild/protobuf";
import { EnvironmentSettingsSchema, KycFieldSchema } from "../../gen/sigil/projects/v0/projects_pb.js";
import { str, ts } from "../mappers.js";

export function toOrganization(o: OrganizationRecord) {
  return {
    id: o.id,
    name: o.name,
    description: str(o.description),
    websiteUrl: str(o.websiteUrl),
    address: o.address
      ? {
          line1: str(o.address.line1),
          line2: str(o.address.line2),
          city: str(o.address.city),
          region: str(o.address.region),
          postalCode: str(o.address.postalCode),
          country: o.address.country,
        }
      : undefined,
    role: str(o.role),
    createdAt: ts(o.createdAt),
    updatedAt: ts(o.updatedAt),
  };
}

export function toMember(m: Member) {
  return {
    id: m.id,
    organizationId: m.organizationId,
    accountId: m.accountId,
    email: str(m.email),
    alias: str(m.alias),
    firstName: str(m.firstName),
    lastName: str(m.lastName),
    role: m.role,
    createdAt: ts(m.createdAt),
    updatedAt: ts(m.updatedAt),
    // The published client's OrganizationMember carries the person as a User: the member's account.
    user: {
      id: m.accountId,
      // An account belongs to no environment.
      projectEnvironmentId: "",
      email: str(m.email),
      alias: str(m.alias),
      firstName: str(m.firstName),
      lastName: str(m.lastName),
    },
  };
}

export function toMfaSetting(s: MfaSettingRecord) {
  return { mfaDeviceType: s.deviceType, enabled: s.enabled, updatedAt: ts(s.updatedAt), enabledAt: s.enabled ? ts(s.updatedAt) : undefined };
}

export function toProject(p: ProjectRecord) {
  return {
    id: p.id,
    organizationId: p.organizationId,
    name: p.name,
    description: str(p.description),
    environments: p.environments.map((e) => ({ id: e.id, name: e.name })),
    createdAt: ts(p.createdAt),
    updatedAt: ts(p.updatedAt),
  };
}

/** Fields collected from end users that are unique per environment and verified with a one-time code. */
const VERIFIED_FIELDS = new Set(["email", "phoneNumber"]);

/** The settings message: the stored document plus kyc, the client's view of sdk.collectUserData. */
export function toEnvironmentSettings(settings: EnvironmentView["settings"]) {
  // Stored in the message's own JSON form; fields a later version dropped are ignored.
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
