import { badRequest } from "../errors.js";
import { pageOf } from "./paging.js";

/**
 * The published client pages events, webhooks and messages with an opaque `cursor` (the previous answer's)
 * instead of offset / limit. Ours stands for the position of the next page; the lists are newest first, so
 * items that arrive meanwhile shift it by as many (a reader may see an item twice, never miss one).
 */
export function pageFromCursor(req: { cursor?: string; offset?: number; limit?: number }): { offset: number; limit: number } {
  const page = pageOf(req);
  if (!req.cursor) return page;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(req.cursor, "base64url").toString("utf8"));
  if (!m) throw badRequest("invalid_cursor", "cursor is not one this service returned", { field: "cursor" });
  return { ...page, offset: Number(m[1]) };
}

/** The cursor of the page after this one, or "" (absent on REST) when this one reaches the end. */
export function nextCursor(page: { offset: number; limit: number }, returned: number, count: number): string {
  const next = page.offset + returned;
  return returned > 0 && next < count ? Buffer.from(`o${next}`).toString("base64url") : "";
}
