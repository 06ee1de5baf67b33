import type { Queryable } from "../db.js";

export interface SdkViewSectionRecord {
  type: string;
  label?: string;
  numOfItemsToDisplay?: number;
  defaultItem?: string;
  alignment?: string;
}

export interface SdkViewRecord {
  id: string;
  environmentId: string;
  type: string;
  sections: SdkViewSectionRecord[];
  createdAt: Date;
  updatedAt: Date;
}

const toView = (r: Record<string, any>): SdkViewRecord => ({
  id: r.id,
  environmentId: r.environment_id,
  type: r.type,
  sections: r.sections,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** The stored (customized) views of an environment; types never set are absent. */
export async function listSdkViews(q: Queryable, environmentId: string): Promise<SdkViewRecord[]> {
  return (await q.any("SELECT * FROM sdk_views WHERE environment_id = $1 ORDER BY type", [environmentId])).map(toView);
}

export async function findSdkView(q: Queryable, environmentId: string, type: string): Promise<SdkViewRecord | null> {
  const row = await q.oneOrNone("SELECT * FROM sdk_views WHERE environment_id = $1 AND type = $2", [environmentId, type]);
  return row ? toView(row) : null;
}

export async function upsertSdkView(q: Queryable, environmentId: string, id: string, type: string, sections: SdkViewSectionRecord[]) {
  const row = await q.one(
    `INSERT INTO sdk_views (id, environment_id, type, sections) VALUES ($1, $2, $3, $4::jsonb)
     ON CONFLICT (environment_id, type) DO UPDATE SET sections = EXCLUDED.sections, updated_at = now()
     RETURNING *`,
    [id, environmentId, type, JSON.stringify(sections)],
  );
  return toView(row);
}
