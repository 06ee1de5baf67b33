import type { ConnectRouter } from "@connectrpc/connect";
import type { DescFile, DescService } from "@bufbuild/protobuf";
import type { Deps } from "../domain/deps.js";

/**
 * One area of the API: its services, the proto files that declare them (for reflection) and the function
 * that registers their handlers. src/rpc/routes.ts lists the modules; the gateway, reflection and the
 * cross-tenant test walk them.
 */
export interface ApiModule {
  services: readonly DescService[];
  files: readonly DescFile[];
  register(router: ConnectRouter, deps: Deps): void;
}
