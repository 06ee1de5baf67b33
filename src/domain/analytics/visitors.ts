import { badRequest } from "../../errors.js";
import { listWalletVisits, type VisitorFilterColumn, type VisitorListQuery } from "../../db/repositories/visitors.js";
import type { Deps } from "../deps.js";
import type { EnvironmentAccess } from "../tenancy/access.js";
import { chainAliases } from "../wallets/addresses.js";

/** The list request as the client sends it (values already checked against the proto's allowed lists). */
export interface VisitorListRequest {
  filter?: { filterColumn: string; filterValue: string; chain: string };
  orderBy: string;
  offset: number;
  limit: number;
}

/**
 * The environment's wallet visitors (visits by signed-in users with a wallet), newest first unless ordered
 * otherwise. filterColumn and filterValue only make sense together (as in the users list): one without the
 * other is refused rather than silently listing everything.
 */
export function walletVisitors(deps: Pick<Deps, "db">, access: EnvironmentAccess, req: VisitorListRequest) {
  const f = req.filter;
  if (f && (f.filterColumn === "") !== (f.filterValue === "")) {
    const field = f.filterColumn === "" ? "filter.filterColumn" : "filter.filterValue";
    const other = f.filterColumn === "" ? "filter.filterValue" : "filter.filterColumn";
    throw badRequest("validation_error", `invalid request: ${field} is required with ${other}`, { errors: [{ field, message: `is required with ${other}` }] });
  }
  const [column, direction] = (req.orderBy || "createdAt:desc").split(":") as ["createdAt", "asc" | "desc"];
  const query: VisitorListQuery = {
    filter: f?.filterColumn ? { column: f.filterColumn as VisitorFilterColumn, value: f.filterValue } : undefined,
    chains: f?.chain ? chainAliases(f.chain) : undefined,
    orderBy: { column, direction },
    offset: req.offset,
    limit: req.limit,
  };
  return listWalletVisits(deps.db, access.environmentId, query);
}
