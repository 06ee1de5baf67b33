import type { ConnectRouter } from "@connectrpc/connect";
import { GatesService } from "../../gen/sigil/gates/v0/gates_service_pb.js";
import type { GateRule } from "../../gen/sigil/gates/v0/gates_pb.js";
import type { GateRecord } from "../../db/repositories/gates.js";
import type { Deps } from "../../domain/deps.js";
import * as gates from "../../domain/gates/service.js";
import { canonicalType, networkIdOf, type GateRuleInput } from "../../domain/gates/rules.js";
import { chainFamilyOf } from "../../domain/wallets/addresses.js";
import { orNull, str, ts } from "../mappers.js";
import { pageOf } from "../paging.js";
import { environmentOf } from "../tenant-context.js";

function toGate(g: GateRecord) {
  return {
    id: g.id,
    name: g.name,
    // The published client's shape: type token | nft, chain the family (EVM, SOL), amount a number.
    rules: g.rules.map((r) => ({
      type: canonicalType(r.type),
      chain: chainFamilyOf(r.chain),
      caip2: r.chain,
      address: { contractAddress: r.address.contractAddress, networkId: networkIdOf(r.chain, r.address.networkId) },
      filter: { tokenId: r.filter.tokenId ?? "", amount: Number(r.filter.amount) },
    })),
    outcome: g.outcome,
    scope: str(g.scope),
    enabledAt: ts(g.enabledAt),
    projectEnvironmentId: g.environmentId,
    createdAt: ts(g.createdAt),
    updatedAt: ts(g.updatedAt),
  };
}

const ruleInput = (r: GateRule): GateRuleInput => ({
  type: r.type,
  chain: r.chain,
  address: r.address ? { contractAddress: r.address.contractAddress, networkId: r.address.networkId } : undefined,
  filter: r.filter ? { tokenId: r.filter.tokenId, amount: r.filter.amount } : undefined,
});

export function registerGates(router: ConnectRouter, deps: Deps) {
  router.service(GatesService, {
    async listGates(req, ctx) {
      const access = environmentOf(ctx);
      const { gates: list, count } = await gates.listGates(deps, access, pageOf(req));
      return { gates: list.map(toGate), count };
    },
    async createGate(req, ctx) {
      const access = environmentOf(ctx);
      const created = await gates.createGate(deps, access, {
        name: req.name,
        outcome: req.outcome,
        scope: orNull(req.scope),
        rules: req.rules.map(ruleInput),
      });
      return { gate: toGate(created) };
    },
    async getGate(req, ctx) {
      const access = environmentOf(ctx);
      return { gate: toGate(await gates.getGate(deps, access, req.gateId)) };
    },
    async updateGate(req, ctx) {
      const access = environmentOf(ctx);
      const updated = await gates.updateGate(deps, access, req.gateId, {
        name: req.name,
        outcome: req.outcome,
        scope: req.scope === undefined ? undefined : orNull(req.scope),
        rules: req.rules.length > 0 ? req.rules.map(ruleInput) : undefined,
      });
      return { gate: toGate(updated) };
    },
    async deleteGate(req, ctx) {
      const access = environmentOf(ctx);
      await gates.deleteGate(deps, access, req.gateId);
      return {};
    },
    async enableGate(req, ctx) {
      const access = environmentOf(ctx);
      return { gate: toGate(await gates.setGateEnabled(deps, access, req.gateId, true)) };
    },
    async disableGate(req, ctx) {
      const access = environmentOf(ctx);
      return { gate: toGate(await gates.setGateEnabled(deps, access, req.gateId, false)) };
    },
  });
}
