/**
 * The custom search attributes Sigil's workflows set (registered on the server by
 * src/temporal/search-attributes.ts), so that an operator can filter flows in the Temporal UI. Plain data:
 * workflow code may import it.
 */
export const SEARCH_ATTRIBUTES = {
  environmentId: { name: "SigilEnvironmentId", type: "KEYWORD" },
  userId: { name: "SigilUserId", type: "KEYWORD" },
  /** The lifecycle operation an actor runs now (or ran last): createShareSet, refresh, sign... */
  operation: { name: "SigilOperation", type: "KEYWORD" },
} as const;
