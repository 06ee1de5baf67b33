import type { OutgoingHttpHeaders } from "node:http";
import { ScalarType, type DescMethod, type Message } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";

/**
 * A server-streaming RPC bound to a REST path is a file download: each message's `data` bytes are the next
 * part of the body, and the first message also carries `content_type`, `filename` and `byte_size` (the
 * Content-Type, Content-Disposition and Content-Length). The body goes out message by message, waiting for
 * the socket to drain, so a file of any size passes through in bounded memory.
 */
const FIELDS = { data: ScalarType.BYTES, content_type: ScalarType.STRING, filename: ScalarType.STRING, byte_size: ScalarType.INT64 } as const;

/** Throws at startup when a streaming method bound to REST does not have the file-stream fields. */
export function checkFileStream(method: DescMethod): void {
  for (const [name, type] of Object.entries(FIELDS)) {
    const f = method.output.fields.find((x) => x.name === name);
    if (!f || f.fieldKind !== "scalar" || f.scalar !== type)
      throw new Error(`${method.parent.typeName}.${method.name} is bound to REST, so ${method.output.typeName} needs ${ScalarType[type].toLowerCase()} ${name}`);
  }
}

/** The headers of a file stream, from its first message (an empty stream is an empty file). */
export function fileStreamHeaders(method: DescMethod, first: Message | undefined): OutgoingHttpHeaders {
  if (!first) return { "content-type": "application/octet-stream", "content-length": "0", "cache-control": "no-store" };
  const r = reflect(method.output, first);
  const get = (name: keyof typeof FIELDS) => r.get(method.output.fields.find((f) => f.name === name)!);
  const contentType = String(get("content_type") || "application/octet-stream");
  const filename = String(get("filename"));
  const size = BigInt(get("byte_size") as bigint);
  return {
    "content-type": contentType,
    ...(filename ? { "content-disposition": `attachment; filename="${filename.replace(/["\\\r\n]/g, "_")}"` } : {}),
    ...(size > 0n ? { "content-length": size.toString() } : {}),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  };
}

/** The `data` bytes of one message of a file stream. */
export function fileStreamData(method: DescMethod, message: Message): Uint8Array {
  return reflect(method.output, message).get(method.output.fields.find((f) => f.name === "data")!) as Uint8Array;
}

/** What a writable HTTP response offers for writing a body with backpressure. */
export interface StreamTarget {
  readonly destroyed: boolean;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(): unknown;
  once(event: "drain" | "close", listener: () => void): unknown;
}

/** Writes the rest of the stream after its first message; stops reading when the client goes away. */
export async function pipeFileStream(method: DescMethod, first: Message | undefined, rest: AsyncIterator<Message>, res: StreamTarget): Promise<void> {
  let next: IteratorResult<Message> = first ? { done: false, value: first } : { done: true, value: undefined };
  while (!next.done) {
    if (res.destroyed) {
      await rest.return?.();
      return;
    }
    if (!res.write(fileStreamData(method, next.value))) {
      await new Promise<void>((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    }
    next = await rest.next();
  }
  res.end();
}
