import type { Member } from "../../db/repositories/tenancy.js";
import { str, ts } from "../mappers.js";

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
