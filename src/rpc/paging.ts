import { badRequest } from "../errors.js";

/** Page sizes of every list operation: `limit` defaults to 100 and may not exceed 1000. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

/** The `offset` / `limit` query parameters of a list request, checked (400 when out of range). */
export function pageOf(req: { offset?: number; limit?: number }): { offset: number; limit: number } {
  const offset = req.offset ?? 0;
  const limit = req.limit || DEFAULT_LIMIT;
  if (offset < 0) throw badRequest("invalid_offset", "offset must be 0 or more", { field: "offset" });
  if (limit < 0 || limit > MAX_LIMIT) throw badRequest("invalid_limit", `limit must be between 1 and ${MAX_LIMIT}`, { field: "limit" });
  return { offset, limit };
}
