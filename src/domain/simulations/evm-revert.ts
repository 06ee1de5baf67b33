import { decodeErrorResult, parseAbi, type Abi, type Hex } from "viem";
import { entryPoint08Abi } from "viem/account-abstraction";

/**
 * Errors a revert is read against besides Error(string) and Panic(uint256) (viem knows those): the
 * EntryPoint's (FailedOp carries the "AA.." reasons) and OpenZeppelin 5's token errors, which most tokens
 * deployed since 2023 revert with instead of a string.
 */
const KNOWN_ERRORS: Abi = [
  ...entryPoint08Abi.filter((item) => item.type === "error"),
  ...parseAbi([
    "error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
    "error ERC20InvalidSender(address sender)",
    "error ERC20InvalidReceiver(address receiver)",
    "error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)",
    "error ERC20InvalidApprover(address approver)",
    "error ERC20InvalidSpender(address spender)",
    "error ERC721InvalidOwner(address owner)",
    "error ERC721NonexistentToken(uint256 tokenId)",
    "error ERC721IncorrectOwner(address sender, uint256 tokenId, address owner)",
    "error ERC721InvalidSender(address sender)",
    "error ERC721InvalidReceiver(address receiver)",
    "error ERC721InsufficientApproval(address operator, uint256 tokenId)",
    "error ERC721InvalidApprover(address approver)",
    "error ERC721InvalidOperator(address operator)",
    "error ERC1155InsufficientBalance(address sender, uint256 balance, uint256 needed, uint256 tokenId)",
    "error ERC1155InvalidSender(address sender)",
    "error ERC1155InvalidReceiver(address receiver)",
    "error ERC1155MissingApprovalForAll(address operator, address owner)",
    "error ERC1155InvalidApprover(address approver)",
    "error ERC1155InvalidOperator(address operator)",
    "error ERC1155InvalidArrayLength(uint256 idsLength, uint256 valuesLength)",
    "error OwnableUnauthorizedAccount(address account)",
    "error ECDSAInvalidSignature()",
  ]),
];

/** Solidity's panic codes (0.8), as the compiler documents them. */
const PANICS: Record<number, string> = {
  0x01: "assertion failed",
  0x11: "arithmetic overflow or underflow",
  0x12: "division or modulo by zero",
  0x21: "invalid enum value",
  0x22: "invalid storage byte array",
  0x31: "pop from an empty array",
  0x32: "array index out of bounds",
  0x41: "out of memory",
  0x51: "call to an uninitialised function",
};

const show = (v: unknown): string => (typeof v === "bigint" ? v.toString() : Array.isArray(v) ? `[${v.map(show).join(", ")}]` : String(v));

/**
 * A revert for people: an Error(string) is its message; a panic its meaning; an EntryPoint FailedOp its
 * "AA.." reason (with the inner revert's for FailedOpWithRevert); a known custom error its name and
 * arguments; anything else the node's own message and the error's selector, so nothing is hidden.
 */
export function revertReason(data: Hex, nodeMessage: string): string {
  if (data.length < 10) return nodeMessage || "execution reverted without a reason";
  let decoded;
  try {
    decoded = decodeErrorResult({ abi: KNOWN_ERRORS, data });
  } catch {
    return `${nodeMessage || "execution reverted"} (custom error ${data.slice(0, 10)})`;
  }
  const args = (decoded.args ?? []) as readonly unknown[];
  switch (decoded.errorName) {
    case "Error":
      return String(args[0]);
    case "Panic": {
      const code = Number(args[0]);
      return `panic 0x${code.toString(16)}: ${PANICS[code] ?? "unknown panic code"}`;
    }
    case "FailedOp":
      return String(args[1]);
    case "FailedOpWithRevert":
      return `${String(args[1])}: ${revertReason(args[2] as Hex, "")}`;
    default:
      return `${decoded.errorName}(${args.map(show).join(", ")})`;
  }
}
