import { DESTINATION_REFUSED } from "../../net/pinned-fetch.js";

/**
 * The error an attempt stores (and the token holder reads back from the message details) is one of a few
 * generic codes; the detail goes to the server log only. Anything finer would let a tenant map networks
 * through the service: a closed port (ECONNREFUSED), a port open to something else than TLS
 * (ERR_SSL_WRONG_VERSION_NUMBER), a reset and a protocol error all read `connect_failed`.
 */
export type DeliveryErrorCode = "connect_failed" | "tls_failed" | "timeout" | "destination_refused" | "interrupted" | `http_${number}`;


/** Certificate verification failures: a TLS server answered but its certificate is not trusted for the host. */
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT_ALTNAME/;

export function deliveryErrorCode(err: unknown, cancelled: boolean): DeliveryErrorCode {
  if (cancelled) return "interrupted";
  const e = err as { name?: string; code?: string; cause?: { name?: string; code?: string } };
  if (e?.name === "TimeoutError" || e?.cause?.name === "TimeoutError" || e?.cause?.code === "UND_ERR_CONNECT_TIMEOUT") return "timeout";
  const code = e?.cause?.code ?? e?.code ?? "";
  if (code === DESTINATION_REFUSED) return "destination_refused";
  if (CERTIFICATE_ERROR.test(code)) return "tls_failed";
  return "connect_failed";
}

/** The detail of a failure for the server log (never stored with the attempt). */
export function deliveryErrorDetail(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return (cause ? `${e?.name ?? "Error"}: ${e?.message ?? "request failed"}: ${cause}` : `${e?.name ?? "Error"}: ${e?.message ?? String(err)}`).slice(0, 500);
}
