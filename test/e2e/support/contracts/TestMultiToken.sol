// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// An ERC-1155 for the local test chain: only its deployer (the minter) mints.
contract TestMultiToken is ERC1155 {
    address public immutable minter;

    constructor(string memory uri_) ERC1155(uri_) {
        minter = msg.sender;
    }

    function mint(address to, uint256 id, uint256 amount) external {
        require(msg.sender == minter, "TestMultiToken: only the minter mints");
        _mint(to, id, amount, "");
    }
}
