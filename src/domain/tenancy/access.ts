/**
 * What a call acts on, as the domain receives it: the tenant (environment, project, organization or the
 * calling account) plus the actor to record in the audit trail. The transport resolves and checks it once
 * per call from the tenant each RPC declares (src/rpc/interceptors/tenancy.ts); domain functions take it as
 * given and pass its ids to repositories, which filter every query by them.
 */

/** Who made a change: recorded with every audit row. */
export interface Actor {
  /** The API token of a management call; empty for an end user's own call through the SDK. */
  tokenId: string;
  /** The end user acting through the SDK (their session's JWT), when it is one. */
  userId?: string;
  memberId: string | null;
  accountId: string | null;
  requestId: string;
}

export interface OrganizationAccess {
  organizationId: string;
  /** The caller's role in the organization (environment tokens act with their creator's role). */
  role: string | null;
  actor: Actor;
}

export interface ProjectAccess extends OrganizationAccess {
  projectId: string;
}

export interface EnvironmentAccess extends ProjectAccess {
  environmentId: string;
  environmentName: "live" | "sandbox";
}

/** Account-level calls (the caller's own tokens, organizations and invites): member (account) tokens only. */
export interface AccountAccess {
  accountId: string;
  permissions: readonly string[];
  actor: Actor;
}

/** The environment a public (credential-less) SDK call names; it exists, and nobody is authenticated. */
export interface PublicEnvironment {
  environmentId: string;
  environmentName: "live" | "sandbox";
  projectId: string;
  organizationId: string;
}
