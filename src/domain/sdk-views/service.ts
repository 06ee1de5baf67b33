import { randomUUID } from "node:crypto";
import { badRequest, unprocessable } from "../../errors.js";
import * as repo from "../../db/repositories/sdk-views.js";
import { audited } from "../audit/audit.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";

/**
 * The screens the SDK lets an environment lay out (the proto's allowed list says the same): the published
 * client declares the login view only, so that is the one an environment lays out.
 */
export const SDK_VIEW_TYPES = ["login"] as const;
export type SdkViewType = (typeof SDK_VIEW_TYPES)[number];

/** Sections that offer a way to sign in. */
const METHOD_SECTIONS = new Set(["email", "phone", "emailAndPhone", "passkey", "social", "wallet"]);
/** Which sections each view can show. */
const ALLOWED_SECTIONS: Record<SdkViewType, ReadonlySet<string>> = {
  login: new Set(["email", "phone", "emailAndPhone", "passkey", "social", "wallet", "separator", "text"]),
};
const MAX_ITEMS = 50;

const sep = (label: string): repo.SdkViewSectionRecord => ({ type: "separator", label });
/** What a view shows until the environment customizes it. */
export const DEFAULT_SDK_VIEWS: Record<SdkViewType, repo.SdkViewSectionRecord[]> = {
  login: [{ type: "email" }, sep("Or"), { type: "social" }, sep("Or"), { type: "wallet", numOfItemsToDisplay: 5 }],
};

export interface SdkView {
  type: SdkViewType;
  sections: repo.SdkViewSectionRecord[];
  customized: boolean;
  updatedAt: Date | null;
}

function view(type: SdkViewType, stored: repo.SdkViewRecord | null): SdkView {
  return stored
    ? { type, sections: stored.sections, customized: true, updatedAt: stored.updatedAt }
    : { type, sections: DEFAULT_SDK_VIEWS[type], customized: false, updatedAt: null };
}

function asType(type: string): SdkViewType {
  if (!(SDK_VIEW_TYPES as readonly string[]).includes(type)) throw badRequest("invalid_sdk_view_type", `unknown SDK view type ${type}`);
  return type as SdkViewType;
}

export async function listSdkViews(deps: Deps, access: EnvironmentAccess): Promise<SdkView[]> {
  const stored = new Map((await repo.listSdkViews(deps.db, access.environmentId)).map((v) => [v.type, v]));
  return SDK_VIEW_TYPES.map((t) => view(t, stored.get(t) ?? null));
}

export async function getSdkView(deps: Deps, access: EnvironmentAccess, type: string): Promise<SdkView> {
  const t = asType(type);
  return view(t, await repo.findSdkView(deps.db, access.environmentId, t));
}

/** Checks the rules the proto cannot say: which sections fit the view, counts, duplicates. */
export function validateSections(type: SdkViewType, sections: repo.SdkViewSectionRecord[]): void {
  const seen = new Set<string>();
  sections.forEach((s, i) => {
    const field = `sections[${i}]`;
    if (!ALLOWED_SECTIONS[type].has(s.type))
      throw unprocessable("invalid_sdk_view_section", `a ${type} view cannot show a ${s.type} section`, { field: `${field}.type` });
    if (METHOD_SECTIONS.has(s.type)) {
      if (seen.has(s.type)) throw unprocessable("duplicate_sdk_view_section", `the ${s.type} section appears twice`, { field: `${field}.type` });
      seen.add(s.type);
    }
    const n = s.numOfItemsToDisplay ?? 0;
    if (n < 0 || n > MAX_ITEMS) throw badRequest("invalid_num_of_items", `numOfItemsToDisplay must be 0 to ${MAX_ITEMS}`, { field: `${field}.numOfItemsToDisplay` });
    if (n > 0 && !(s.type === "social" || s.type === "wallet"))
      throw unprocessable("invalid_sdk_view_section", "numOfItemsToDisplay applies to social and wallet sections only", { field: `${field}.numOfItemsToDisplay` });
    if (s.defaultItem && !(s.type === "social" || s.type === "wallet"))
      throw unprocessable("invalid_sdk_view_section", "defaultItem applies to social and wallet sections only", { field: `${field}.defaultItem` });
  });
  if (seen.size === 0) throw unprocessable("sdk_view_without_method", `a ${type} view needs at least one sign-in section`);
}

export async function updateSdkView(deps: Deps, access: EnvironmentAccess, type: string, sections: repo.SdkViewSectionRecord[]): Promise<SdkView> {
  const t = asType(type);
  validateSections(t, sections);
  return audited(deps, access, async (tx, record) => {
    const before = await repo.findSdkView(tx, access.environmentId, t);
    const saved = await repo.upsertSdkView(tx, access.environmentId, randomUUID(), t, sections);
    await record({
      action: "sdk_view.updated",
      resourceType: "sdk_view",
      resourceId: saved.id,
      before: { type: t, sections: before?.sections ?? DEFAULT_SDK_VIEWS[t], customized: before !== null },
      after: { type: t, sections: saved.sections },
    });
    return view(t, saved);
  });
}
