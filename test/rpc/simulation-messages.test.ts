import type { DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { file_sigil_simulations_v0_simulations, SimulationSchema } from "../../src/gen/sigil/simulations/v0/simulations_pb.js";
import {
  file_sigil_solana_transactions_v0_sdk_solana_transactions_service,
  SimulateSvmTransactionResponseSchema,
} from "../../src/gen/sigil/solana_transactions/v0/sdk_solana_transactions_service_pb.js";

/** The message types of a message's fields, by field name. */
const fieldMessages = (desc: DescMessage) => Object.fromEntries(desc.fields.map((f) => [f.localName, f.message?.typeName ?? f.scalar]));

/**
 * One name per capability: the published client has one SimulateTransactionResponse (and one Asset,
 * AssetDiff, AssetTransfer, PriceData, BlockaidValidation) for every chain, so the EVM and the Solana
 * simulation answers are built of the same messages (sigil.simulations.v0), never of copies that drift.
 */
describe("simulation answers share one set of messages", () => {
  it("the Solana answer's parts are sigil.simulations.v0's, as the EVM answer's are", () => {
    const shared = fieldMessages(SimulationSchema);
    const solana = fieldMessages(SimulateSvmTransactionResponseSchema);
    for (const field of ["inAssets", "outAssets", "counterparties", "priceData", "showTotalFiat", "validation"]) expect(solana[field], field).toBe(shared[field]);
  });

  it("no package but sigil.simulations.v0 defines the simulation's parts", () => {
    const parts = new Set(file_sigil_simulations_v0_simulations.messages.map((m) => m.name));
    const copies = file_sigil_solana_transactions_v0_sdk_solana_transactions_service.messages.filter((m) => parts.has(m.name)).map((m) => m.typeName);
    expect(copies).toEqual([]);
  });
});
