/** The Overview's own shapes; the API's are in api/types.ts. */

/** What the sections show: the whole organization, or one project of it. */
export interface OverviewScope {
  /** null: the organization. */
  project: { id: number; slug: string; name: string } | null;
  timeZone: string;
  currency: string;
}
