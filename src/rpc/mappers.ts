import { timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

/** Date -> Timestamp, keeping absent values absent (nullable fields then read as null on REST). */
export function ts(d: Date | null | undefined): Timestamp | undefined {
  return d ? timestampFromDate(d) : undefined;
}

/** null -> "" for proto3 strings (the gateway omits empty strings). */
export const str = (s: string | null | undefined): string => s ?? "";

/** "" -> null: proto3 strings cannot be absent, the database columns can. */
export const orNull = (s: string): string | null => (s === "" ? null : s);
