import type { ConnectRouter } from "@connectrpc/connect";
import { checkChatAuth, completeChatAuth, linkChat, openChatAuth, signInWithChat, type ChatAuthInput } from "../../domain/chat-sign-in/service.js";
import type { WidgetFields } from "../../domain/chat-sign-in/widget.js";
import type { Deps } from "../../domain/deps.js";
import { SdkChatSignInService, type ChatAuthResult, type ChatUser } from "../../gen/sigil/chat_sign_in/v0/chat_sign_in_service_pb.js";
import { clientMetaOf, endUserOf } from "../context.js";
import { toSignIn } from "../sessions/mappers.js";
import { publicEnvironmentOf } from "../tenant-context.js";

/** The widget's user object back in the widget's own field names: exactly the fields it signed. */
function widgetFields(u: ChatUser | undefined): WidgetFields {
  if (!u) throw new Error("validation let a request without its chatUser through");
  const fields: WidgetFields = { id: u.id.toString(), auth_date: u.authDate, hash: u.hash };
  if (u.firstName) fields.first_name = u.firstName;
  if (u.lastName) fields.last_name = u.lastName;
  if (u.username) fields.username = u.username;
  if (u.photoUrl) fields.photo_url = u.photoUrl;
  return fields;
}

const inputOf = (r: ChatAuthResult | undefined): ChatAuthInput => ({
  state: r?.state || undefined,
  code: r?.code || undefined,
  chatAuthToken: r?.chatAuthToken || undefined,
});

export function registerChatSignIn(router: ConnectRouter, deps: Deps): void {
  router.service(SdkChatSignInService, {
    async getChatAuth(req, ctx) {
      const { html, headers } = await openChatAuth(deps, publicEnvironmentOf(ctx), { state: req.state, redirectUrl: req.redirectUrl || undefined });
      // The REST gateway passes these on with the page (src/gateway/index.ts FORWARDED_RESPONSE_HEADERS).
      for (const [name, value] of Object.entries(headers)) ctx.responseHeader.set(name, value);
      return { page: { contentType: "text/html; charset=utf-8", data: new TextEncoder().encode(html) } };
    },
    async postChatAuth(req, ctx) {
      return completeChatAuth(deps, publicEnvironmentOf(ctx), req.state, widgetFields(req.chatUser));
    },
    async chatCheckAuth(req, ctx) {
      await checkChatAuth(deps, publicEnvironmentOf(ctx), req.result?.state ?? "");
      return {};
    },
    async chatSignIn(req, ctx) {
      const r = await signInWithChat(deps, publicEnvironmentOf(ctx), inputOf(req.result), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user, { newUser: r.newUser }) };
    },
    async chatVerify(req, ctx) {
      const r = await linkChat(deps, publicEnvironmentOf(ctx), endUserOf(ctx), inputOf(req.result), clientMetaOf(ctx));
      return { signIn: toSignIn(r.tokens, r.user) };
    },
  });
}
