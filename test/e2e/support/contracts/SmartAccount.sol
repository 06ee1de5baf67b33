// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {IERC1271} from "@openzeppelin/contracts/interfaces/IERC1271.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {ERC721Holder} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Holder.sol";
import {ERC1155Holder} from "@openzeppelin/contracts/token/ERC1155/utils/ERC1155Holder.sol";

/// A smart-contract wallet with one EOA owner. It accepts a signature (ERC-1271) when the owner signed the
/// hash it is asked about: for a personal_sign message that hash is the EIP-191 one, exactly what viem's
/// verifyMessage passes, so the owner signs with signMessage and nothing is prefixed again here.
/// It can hold ether and tokens (NFTs included, through the receiver hooks) and the owner moves them with
/// execute, so that balances and token gates can be tried on a wallet that is a contract.
contract SmartAccount is IERC1271, ERC721Holder, ERC1155Holder {
    address public immutable owner;

    constructor(address owner_) {
        owner = owner_;
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err, ) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? IERC1271.isValidSignature.selector : bytes4(0xffffffff);
    }

    function execute(address to, uint256 value, bytes calldata data) external returns (bytes memory) {
        require(msg.sender == owner, "SmartAccount: only the owner executes");
        (bool ok, bytes memory result) = to.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
        return result;
    }

    receive() external payable {}
}
