import type { OrganizationRecord } from "../../db/repositories/organizations.js";
import type { Member } from "../../db/repositories/tenancy.js";
import type { ProjectRecord } from "../../db/repositories/projects.js";
import type { MfaSettingRecord } from "../../db/repositories/mfa-settings.js";
import type { EnvironmentView } from "../../domain/environments/service.js";
import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { EnvironmentSettingsSchema } from "../../gen/sigil/projects/v0/projects_pb.js";
import { str, ts } from "../mappers.js";

export function toOrganization(o: OrganizationRecord) {
  return {
    id: o.id,
    name: o.name,
    description: str(o.description),
    websiteUrl: str(o.websiteUrl),
    address: o.address
      ? {
          line1: o.address.line1,
          line2: str(o.address.line2),
          city: o.address.city,
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
  };
}

export function toMfaSetting(s: MfaSettingRecord) {
  return { mfaDeviceType: s.deviceType, enabled: s.enabled, updatedAt: ts(s.updatedAt) };
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

export function toEnvironment(e: EnvironmentView) {
  return {
    id: e.id,
    projectId: e.projectId,
    organizationId: e.organizationId,
    name: e.name,
    // Stored in the message's own JSON form; fields a later version dropped are ignored.
    settings: fromJson(EnvironmentSettingsSchema, e.settings as JsonObject, { ignoreUnknownFields: true }),
    createdAt: ts(e.createdAt),
    updatedAt: ts(e.updatedAt),
  };
}
