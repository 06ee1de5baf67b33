import type { CustomFieldRecord } from "../../db/repositories/custom-fields.js";
import type { UserMfaDeviceRecord } from "../../db/repositories/user-mfa-devices.js";
import type { SessionRecord } from "../../db/repositories/users.js";
import type { SignedInUserRecord, UserAggregateRecord as UserAggregate } from "../../db/repositories/user-aggregate.js";
import type { UserView } from "../../domain/users/service.js";
import { str, ts } from "../mappers.js";
import { toCustomField } from "../custom-fields/mappers.js";
import { toWallet } from "../wallets/mappers.js";

/** The provider of wallets whose key the service holds or shares (embedded V1/V2 and threshold wallets). */
const EMBEDDED_WALLET_PROVIDER = "embeddedWallet";

export function toSession(s: SessionRecord) {
  return { id: s.id, createdAt: ts(s.createdAt), ipAddress: str(s.ipAddress), userAgent: str(s.userAgent), revokedAt: ts(s.revokedAt) };
}

/** The client's MFADevice: verified once verifiedAt is set; `default` marks the device asked for first. */
export function toMfaDevice(d: UserMfaDeviceRecord) {
  return {
    id: d.id,
    type: d.type,
    verified: d.verifiedAt !== null,
    createdAt: ts(d.createdAt),
    verifiedAt: ts(d.verifiedAt),
    default: d.isDefault,
    alias: str(d.alias),
  };
}

/** A user as the domain returns it, with the required custom fields it lacks. */
export function toUserView(v: UserView) {
  return toUser(v.aggregate, v.missingFields);
}

/**
 * The spec's User resource, credentials in the order they were verified. A user as a session's answer
 * carries it (SignedInUserRecord: the client's SdkUser) has no sessions, and none are shown.
 */
export function toUser(a: UserAggregate | SignedInUserRecord, missing: readonly CustomFieldRecord[] = []) {
  const u = a.user;
  const walletCredentials = a.wallets.map((w) => ({
    at: w.createdAt,
    vc: {
      id: w.credentialId,
      format: "blockchain",
      signInEnabled: true,
      address: w.address,
      chain: w.chain,
      publicIdentifier: w.address,
      walletName: w.name,
      walletProvider: w.provider,
      // The wallet row behind an embedded wallet's credential (the SDK's embedded-wallet operations take either id).
      embeddedWalletId: w.provider === EMBEDDED_WALLET_PROVIDER ? w.id : "",
      walletProperties: toWallet(w).properties,
      walletAdditionalAddresses: w.additionalAddresses.map((x) => ({ address: x.address, type: x.type, publicKey: str(x.publicKey) })),
      lastSelectedAt: ts(w.lastSelectedAt),
      verifiedAt: ts(w.createdAt),
      previousUsers: w.previousUserIds,
    },
  }));
  const otherCredentials = a.credentials.map((c) => ({
    at: c.verifiedAt,
    vc: {
      id: c.id,
      format: c.format,
      signInEnabled: c.signInEnabled,
      publicIdentifier: str(c.email ?? c.phoneNumber ?? c.oauthUsername ?? c.oauthAccountId),
      email: str(c.email),
      phoneNumber: str(c.phoneNumber),
      phoneCountryCode: str(c.phoneCountryCode),
      isoCountryCode: str(c.isoCountryCode),
      oauthProvider: str(c.oauthProvider),
      oauthAccountId: str(c.oauthAccountId),
      oauthUsername: str(c.oauthUsername),
      oauthDisplayName: str(c.oauthDisplayName),
      oauthEmails: c.oauthEmails,
      oauthAccountPhotos: c.oauthPhotos,
      oauthMetadata: c.format === "oauth" ? (c.oauthMetadata as Record<string, never>) : undefined,
      lastSelectedAt: ts(c.lastSelectedAt),
      verifiedAt: ts(c.verifiedAt),
      previousUsers: c.previousUserIds,
    },
  }));
  const credentials = [...otherCredentials, ...walletCredentials].sort((x, y) => x.at.getTime() - y.at.getTime());
  const firstWallet = a.wallets[0];
  return {
    id: u.id,
    projectEnvironmentId: u.environmentId,
    verifiedCredentials: credentials.map((c) => c.vc),
    lastVerifiedCredentialId: credentials.at(-1)?.vc.id ?? "",
    alias: str(u.alias),
    country: str(u.country),
    email: str(u.email),
    firstName: str(u.firstName),
    jobTitle: str(u.jobTitle),
    lastName: str(u.lastName),
    phoneNumber: str(u.phoneNumber),
    team: str(u.team),
    username: str(u.username),
    tShirtSize: str(u.tShirtSize),
    mfaBackupCodeAcknowledgement: str(u.mfaBackupCodeAcknowledgement),
    policiesConsent: u.policiesConsent,
    firstVisit: ts(u.firstVisit),
    lastVisit: ts(u.lastVisit),
    createdAt: ts(u.createdAt),
    updatedAt: ts(u.updatedAt),
    newUser: false,
    metadata: u.metadata as Record<string, never>,
    walletPublicKey: str(firstWallet?.address),
    wallet: str(firstWallet?.name),
    chain: str(firstWallet?.chain),
    sessions: "sessions" in a ? a.sessions.map(toSession) : [],
    mfaDevices: a.mfaDevices.map(toMfaDevice),
    missingFields: missing.map(toCustomField),
    externalUserId: str(u.externalUserId),
    wallets: a.wallets.map(toWallet),
    oauthAccounts: a.credentials
      .filter((c) => c.format === "oauth")
      .map((c) => ({ id: c.id, provider: str(c.oauthProvider), accountUsername: str(c.oauthUsername) })),
  };
}
