import * as mfa from "../../db/repositories/mfa.js";
import * as passkeys from "../../db/repositories/passkeys.js";
import type { PasskeyRecord } from "../../db/repositories/passkeys.js";
import * as users from "../../db/repositories/users.js";
import type { UserMfaDeviceRecord } from "../../db/repositories/user-mfa-devices.js";
import { notFound, unprocessable } from "../../errors.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import { endUserAccess } from "../sessions/service.js";
import { mfaPolicy, type MfaCaller } from "./caller.js";
import { loadUserFactors, sessionFirstFactor, usableFactors } from "./factors.js";
import { redeemMfaToken } from "./mfa-token.js";

/**
 * The caller's MFA devices (TOTP and passkey devices alike): list, read, choose the default, delete. The
 * default device is the one asked for first; it cannot be deleted (spec), only replaced as default by
 * another verified device, so a user with devices always has one to pass.
 */

/** What audit rows and events show of a device (never its secret). */
export const deviceSnapshot = (d: UserMfaDeviceRecord) => ({
  id: d.id,
  userId: d.userId,
  type: d.type,
  alias: d.alias,
  default: d.isDefault,
  verified: d.verifiedAt !== null,
});

export async function listDevices(deps: Pick<Deps, "db">, caller: MfaCaller): Promise<UserMfaDeviceRecord[]> {
  return mfa.listDevices(deps.db, caller.env.environmentId, caller.principal.userId);
}

/**
 * The ways the caller can pass a second factor: their devices of the kinds the environment offers, the
 * passkeys behind their passkey devices, and whether they have any factor this session can pass (a
 * verified device, or a verified address other than the one it signed in with when e-mail is offered: that
 * factor has no device row, and a client must not offer to enrol a device instead of it).
 */
export async function listMethods(
  deps: Pick<Deps, "db" | "sessionKeys">,
  caller: MfaCaller,
  verifiedOnly: boolean,
): Promise<{ devices: UserMfaDeviceRecord[]; passkeys: PasskeyRecord[]; userHasVerifiedMfaMethods: boolean }> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  const policy = await mfaPolicy(deps, caller);
  const offered = (await mfa.listDevices(deps.db, environmentId, userId)).filter((d) => policy.enabled && (policy.methods as string[]).includes(d.type));
  const devices = verifiedOnly ? offered.filter((d) => d.verifiedAt !== null) : offered;
  const passkeyDeviceIds = new Set(devices.filter((d) => d.type === "passkey").map((d) => d.id));
  const keys = passkeyDeviceIds.size === 0 ? [] : (await passkeys.listMfaPasskeys(deps.db, environmentId, userId)).filter((p) => passkeyDeviceIds.has(p.mfaDeviceId ?? ""));
  const [factors, first] = await Promise.all([loadUserFactors(deps.db, environmentId, userId), sessionFirstFactor(deps.db, environmentId, userId, caller.principal.sessionId)]);
  const byEmail = usableFactors(policy, factors, first).emails.length > 0;
  return { devices, passkeys: keys, userHasVerifiedMfaMethods: byEmail || offered.some((d) => d.verifiedAt !== null) };
}

export async function getDevice(deps: Pick<Deps, "db">, caller: MfaCaller, deviceId: string): Promise<UserMfaDeviceRecord> {
  const d = await mfa.findDevice(deps.db, caller.env.environmentId, caller.principal.userId, deviceId);
  if (!d) throw notFound("mfa device");
  return d;
}

const defaultDevice = () => unprocessable("default_mfa_device", "this is the default MFA device: make another device the default first");

/** default: true makes the (verified) device the default one; false is accepted only for a device that is not. */
export async function updateDevice(deps: Pick<Deps, "db">, caller: MfaCaller, deviceId: string, change: { default: boolean }): Promise<void> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  await audited(deps, endUserAccess(caller.env, userId, caller.meta.requestId), async (t, record) => {
    if (!(await users.lockUser(t, environmentId, userId))) throw notFound("user");
    const before = await mfa.findDevice(t, environmentId, userId, deviceId);
    if (!before) throw notFound("mfa device");
    if (before.isDefault === change.default) return;
    if (!change.default) throw defaultDevice();
    if (before.verifiedAt === null) throw unprocessable("mfa_device_not_verified", "only a verified device can be the default one");
    await mfa.makeDefaultDevice(t, environmentId, userId, deviceId);
    const after = (await mfa.findDevice(t, environmentId, userId, deviceId))!;
    await record({ action: "user.mfa_device.updated", resourceType: "mfa_device", resourceId: deviceId, before: deviceSnapshot(before), after: deviceSnapshot(after) });
  });
}

/** Deletes a device that is not the default, on a fresh second factor (an mfaToken of this session). */
export async function deleteDevice(deps: Pick<Deps, "db" | "store">, caller: MfaCaller, deviceId: string, mfaToken: string | null): Promise<void> {
  const { environmentId } = caller.env;
  const { userId } = caller.principal;
  const existing = await mfa.findDevice(deps.db, environmentId, userId, deviceId);
  if (!existing) throw notFound("mfa device");
  if (existing.isDefault) throw defaultDevice();
  await redeemMfaToken(deps, caller, mfaToken);
  await audited(deps, endUserAccess(caller.env, userId, caller.meta.requestId), async (t, record) => {
    if (!(await users.lockUser(t, environmentId, userId))) throw notFound("user");
    const before = await mfa.findDevice(t, environmentId, userId, deviceId);
    if (!before) throw notFound("mfa device");
    // Made the default meanwhile: the statement below leaves it, and so do we.
    if (!(await mfa.deleteDevice(t, environmentId, userId, deviceId))) throw defaultDevice();
    await record({ action: "user.mfa_device.deleted", resourceType: "mfa_device", resourceId: deviceId, before: deviceSnapshot(before) });
  });
}
