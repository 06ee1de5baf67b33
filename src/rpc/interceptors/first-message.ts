import type { Message } from "@bufbuild/protobuf";
import type { StreamRequest } from "@connectrpc/connect";

/**
 * The request message of a server-streaming call (its only one), for interceptors that must see it before
 * the handler runs, with the request to pass on: the same messages, that one put back in front.
 */
export async function firstMessage(req: StreamRequest): Promise<{ message: Message | undefined; req: StreamRequest }> {
  const it = req.message[Symbol.asyncIterator]();
  const first = await it.next();
  return { message: first.done ? undefined : (first.value as Message), req: { ...req, message: replay(first, it) } };
}

async function* replay<T>(first: IteratorResult<T>, rest: AsyncIterator<T>): AsyncIterable<T> {
  for (let r = first; !r.done; r = await rest.next()) yield r.value;
}
